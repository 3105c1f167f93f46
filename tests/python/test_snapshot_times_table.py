"""The snapshot's times (`last_attempted_at`, `last_succeeded_at`, `first_added_at`) of
sync_logs.canonical.snapshot against the shared table of cases tests/data/snapshot_times.csv,
built from a row's whole changelog and updated incrementally from its state before its newest
run; the SQL source modes are held to the same table in tests/dbt/test_rule_tables_sql.py."""

import pytest
from pyspark.sql import functions as F

from case_tables import read_cases
from sync_logs.canonical import snapshot as snapshot_rules

CASES = read_cases("snapshot_times")
TIMES = ["last_attempted_at", "last_succeeded_at", "first_added_at"]
CHANGELOG_SCHEMA = (
    "sync_id bigint, row_id string, sync_run_id bigint, sync_run_started_at string, "
    "batch_started_at string, batch_ended_at string, op_type string, status string, "
    "failed_reason string, fields string, split_group string, log_id string, "
    "batch_type string, batch_number int, batch_file string, batch_row_index bigint"
)


def changelog_of(spark, cases):
    """One sync per case (its index), one row `r`; each attempt in its own batch file."""
    rows = [
        (
            sync_id,
            "r",
            int(a["sync_run_id"]),
            a["run_started_at"],
            a["batch_started_at"],
            a["batch_ended_at"],
            a["op_type"],
            a["status"],
            None,
            "{}",
            None,
            f"log-{sync_id}-{n}",
            "records_updated",
            n,
            f"records_updated.{n}.parquet",
            0,
        )
        for sync_id, case in cases
        for n, a in enumerate(case["inputs"])
    ]
    frame = spark.createDataFrame(rows, CHANGELOG_SCHEMA)
    for name in ("sync_run_started_at", "batch_started_at", "batch_ended_at"):
        frame = frame.withColumn(name, F.to_timestamp(name, "yyyy-MM-dd HH:mm"))
    return frame


def times_of(states) -> dict[int, dict]:
    """Per sync: the three times as `yyyy-MM-dd HH:mm` text (null as None)."""
    text = {
        name: F.date_format(column, "yyyy-MM-dd HH:mm")
        for name, column in [
            ("last_attempted_at", F.col("latest.attempted_at")),
            ("last_succeeded_at", F.col("last_succeeded_at")),
            ("first_added_at", F.col("first_added_at")),
        ]
    }
    return {
        r["sync_id"]: {name: r[name] for name in TIMES}
        for r in states.select("sync_id", *[c.alias(n) for n, c in text.items()]).collect()
    }


def test_row_states_give_every_expected_time(spark):
    got = times_of(snapshot_rules.row_states(changelog_of(spark, enumerate(CASES))))
    assert {CASES[i]["case"]: times for i, times in got.items()} == {
        case["case"]: case["expected"] for case in CASES
    }


def newest_run(case) -> int:
    return max((a["run_started_at"], int(a["sync_run_id"])) for a in case["inputs"])[1]


MANY_RUNS = [c for c in CASES if len({a["sync_run_id"] for a in c["inputs"]}) > 1]


@pytest.mark.parametrize("case", MANY_RUNS, ids=lambda c: c["case"])
def test_state_before_the_newest_run_updated_by_it_gives_the_same_times(spark, case):
    changelog = changelog_of(spark, [(0, case)])
    newest = newest_run(case)
    before = changelog.filter(F.col("sync_run_id") != newest)
    runs = before.select("sync_id", "sync_run_id", "sync_run_started_at").distinct()
    previous = snapshot_rules.snapshot_rows(snapshot_rules.row_states(before), runs)
    updated = snapshot_rules.updated_states(
        previous, changelog.filter(F.col("sync_run_id") == newest)
    )
    assert times_of(updated) == {0: case["expected"]}
