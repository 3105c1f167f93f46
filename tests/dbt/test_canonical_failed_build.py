"""A build that fails before its commit, then a lake that changes (issue 37, cases 1 to 3).

The failed build is a `dbt run` of the models up to `int_sync_logs__snapshot`: it writes the
changelog and snapshot rows of three new runs and never writes `sync_runs`, which commits them.
The lake then changes under them: run 1012 (a late run of sync 101) turns invalid, run 1022
loses its record file, run 1032's folder leaves the lake, and a zero-padded sibling folder
`0101` brings sync 101 a run of its own. The next build must equal a clean build of the lake as
it now is (another schema), table by table; the gone run is reported in the quarantine.

Four builds: the first lake, the failed one, the next (`dbt build`, data tests included), and a
clean `dbt run` of the final lake."""

from __future__ import annotations

import shutil

import pytest
from build_comparison import COMPARED_TABLES, comparable_rows

from handmade_lake import at, metadata, run_dir, upsert, write_run
from sync_logs_dev.dbt_invoke import run_dbt

ORG = 42
INCREMENTAL, CLEAN = "canon_failed", "canon_failed_clean"
RECORDS = "records_updated.0.parquet"
GONE_RUN = 1032
# The run whose folder left before its commit: the clean build never saw it.
GONE = ("sync_run_id", GONE_RUN)
def run(lake, sync: int, run_id: int, minute: float, rows: list[dict]) -> None:
    write_run(lake, ORG, sync, run_id, at(minute), {RECORDS: rows})


def build(lake, work, schema: str, *args: str) -> None:
    run_dbt(
        [*args] if args else ["run", "--select", "path:models/canonical"],
        target_dir=work / schema,
        dbt_vars={"sync_logs_raw_root": str(lake), "sync_logs_all_data_tests": True},
        env={"SYNC_LOGS_SCHEMA": schema},
    )


def first_lake(lake) -> None:
    """Syncs 101 (runs at minutes 0 and 120), 102 and 103 (one run each)."""
    run(lake, 101, 1011, 0, [upsert("a", 1, 1), upsert("b", 1, 1)])
    run(lake, 101, 1013, 120, [upsert("a", 2, 121), upsert("c", 1, 121)])
    run(lake, 102, 1021, 0, [upsert("a", 1, 1)])
    run(lake, 103, 1031, 0, [upsert("a", 1, 1)])


def new_runs(lake) -> None:
    """A late run of sync 101 (it changes run 1013's op_types), a run each of 102 and 103."""
    run(lake, 101, 1012, 60, [upsert("a", 9, 61), upsert("c", 9, 61)])
    run(lake, 102, 1022, 60, [upsert("a", 2, 61), upsert("b", 1, 61)])
    run(lake, 103, GONE_RUN, 60, [upsert("a", 2, 61)])


def changed_lake(lake) -> None:
    (run_dir(lake, ORG, 101, 1012) / "metadata.json").write_text("{not json", encoding="utf-8")
    (run_dir(lake, ORG, 102, 1022) / RECORDS).unlink()
    shutil.rmtree(run_dir(lake, ORG, 103, GONE_RUN))
    meta = metadata(ORG, 101, 1099, at(180))
    write_run(lake, ORG, "0101", 1099, at(180), {RECORDS: [upsert("b", 2, 181)]}, meta=meta)


def rows(spark, schema: str, table: str, *columns: str) -> list[tuple]:
    frame = spark.table(f"{schema}.{table}").select(*columns)
    return sorted((tuple(row) for row in frame.collect()), key=repr)


@pytest.fixture(scope="module")
def failed(spark, tmp_path_factory):
    work = tmp_path_factory.mktemp("canonical_failed_build")
    lake = work / "lake"
    first_lake(lake)
    build(lake, work, INCREMENTAL)
    new_runs(lake)
    build(lake, work, INCREMENTAL, "run", "--select", "+int_sync_logs__snapshot")
    left = {
        "changelog": rows(spark, INCREMENTAL, "sync_changelog", "sync_run_id", "row_id"),
        "snapshot": rows(spark, INCREMENTAL, "int_sync_logs__snapshot", "sync_run_id", "row_id"),
        "runs": rows(spark, INCREMENTAL, "sync_runs", "sync_run_id"),
    }
    changed_lake(lake)
    build(lake, work, INCREMENTAL, "build", "--select", "path:models/canonical", "path:tests/data")
    build(lake, work, CLEAN)
    yield left
    shutil.rmtree(work, ignore_errors=True)


def test_the_failed_build_left_uncommitted_rows(failed):
    assert failed["runs"] == [(1011,), (1013,), (1021,), (1031,)]
    assert {run_id for run_id, _ in failed["changelog"]} >= {1012, 1022, GONE_RUN}
    assert (1022, "b") in failed["snapshot"] and (GONE_RUN, "a") in failed["snapshot"]


def test_the_next_build_loads_what_the_lake_holds_now(spark, failed):
    assert rows(spark, INCREMENTAL, "sync_runs", "sync_id", "sync_run_id", "num_records") == [
        (101, 1011, 2), (101, 1013, 2), (101, 1099, 1),
        (102, 1021, 1), (102, 1022, 0),
        (103, 1031, 1),
    ]  # fmt: skip
    columns = ("sync_run_id", "row_id", "op_type")
    assert rows(spark, INCREMENTAL, "sync_changelog", *columns) == [
        (1011, "a", "added"), (1011, "b", "added"),
        (1013, "a", "changed"), (1013, "c", "added"),
        (1021, "a", "added"),
        (1031, "a", "added"),
        (1099, "b", "changed"),
    ]  # fmt: skip


def test_the_run_whose_folder_left_before_its_commit_is_reported(spark, failed):
    reasons = spark.table(f"{INCREMENTAL}.sync_logs_quarantine").where(
        f"sync_run_id = {GONE_RUN}"
    )
    assert [(row["item_type"], row["reason"]) for row in reasons.collect()] == [
        ("run_folder", "the run folder left the lake before its load was committed")
    ]


@pytest.mark.parametrize("table", COMPARED_TABLES)
def test_the_next_build_equals_a_clean_build_of_the_lake(spark, failed, table):
    assert comparable_rows(spark, INCREMENTAL, table, GONE) == comparable_rows(
        spark, CLEAN, table, GONE
    )
