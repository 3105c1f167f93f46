"""sync_changelog: status mapping, each op_type rule, payload_changed, folding, log_id, late runs.

Inputs are hand-made records (the shape `read_records` gives) and run metadata; expected
rows are written out by hand next to them.
"""

import hashlib
from datetime import UTC, datetime, timedelta

import pytest
from pyspark.sql import functions as F

from sync_logs.canonical import changelog as changelog_rules
from sync_logs.canonical import records as record_reading

T0 = datetime(2026, 10, 1, 6, 0, tzinfo=UTC)
LOGGED_1 = datetime(2026, 11, 1, tzinfo=UTC)
LOGGED_2 = datetime(2026, 11, 2, tzinfo=UTC)
# Spark returns timestamps as naive datetimes in the session time zone (UTC).
AT_1 = LOGGED_1.replace(tzinfo=None)
AT_2 = LOGGED_2.replace(tzinfo=None)
RECORD_SCHEMA = record_reading.RECORD_SCHEMA
RUN_SCHEMA = (
    "sync_id bigint, sync_run_id bigint, sync_run_started_at timestamp, behavior string, "
    "split_group string, sync_run_error string"
)


def t(minutes: float) -> datetime:
    return T0 + timedelta(minutes=minutes)


def record(run, identifier, payload='{"v": 1}', operation="upsert", status="succeeded", **kw):
    row = {
        "org_id": 1,
        "sync_id": kw.pop("sync_id", 10),
        "sync_run_id": run,
        "batch_file": kw.pop("batch_file", "records_updated.0.parquet"),
        "batch_type": kw.pop("batch_type", "records_updated"),
        "batch_number": kw.pop("batch_number", 0),
        "row_index": kw.pop("row_index", 0),
        "identifier": identifier,
        "record_payload": payload,
        "operation": operation,
        "status": status,
        "status_message": kw.pop("status_message", None),
        "batch_started_at": kw.pop("batch_started_at", None),
        "batch_ended_at": kw.pop("batch_ended_at", None),
        "payload_problem": kw.pop("payload_problem", None),
        "payload_truncated": kw.pop("payload_truncated", False),
        "timestamp_problem": kw.pop("timestamp_problem", None),
        "manifest_version": 1,
    }
    assert not kw, kw
    return row


def frames(spark, records, runs):
    records_df = spark.createDataFrame(
        [tuple(r[c] for c in record_reading.RECORD_COLUMNS) for r in records], RECORD_SCHEMA
    )
    runs_df = spark.createDataFrame(
        [
            (
                r.get("sync_id", 10),
                r["run"],
                r["started"],
                r.get("behavior", "mirror"),
                r.get("split_group"),
                r.get("error"),
            )
            for r in runs
        ],
        RUN_SCHEMA,
    )
    return records_df, runs_df


def build(spark, records, runs, existing=None, logged=LOGGED_1):
    records_df, runs_df = frames(spark, records, runs)
    new_rows = changelog_rules.fold_redeliveries(records_df, runs_df)
    return changelog_rules.build_changelog(new_rows, existing, F.lit(logged).cast("timestamp"))


def rows(frame, *columns):
    return sorted(
        (tuple(r) for r in frame.select(*columns).collect()), key=lambda r: tuple(map(str, r))
    )


def test_status_mapping_and_failed_reason(spark):
    records = [
        record(1, "a", status="succeeded", row_index=0),
        record(1, "b", status="SUCCEEDED", row_index=1),
        record(1, "c", status="rejected", status_message="INVALID_EMAIL", row_index=2),
        record(1, None, status="NULL", row_index=3),
        record(1, "d", status="DUPLICATE", row_index=4),
        record(1, "e", status=None, row_index=5),
        record(1, "f", status="  ", row_index=6),
        record(1, "g", status="throttled", row_index=7),
        record(1, "h", status="Rejected", status_message=None, row_index=8),
    ]
    runs = [{"run": 1, "started": t(0), "error": "Run cancelled by user"}]
    result = build(spark, records, runs)
    assert rows(result, "row_id", "raw_status", "status", "failed_reason") == sorted(
        [
            ("a", "succeeded", "succeeded", None),
            ("b", "SUCCEEDED", "succeeded", None),
            ("c", "rejected", "failed", "INVALID_EMAIL"),
            (None, "NULL", "invalid", "null identifier"),
            ("d", "DUPLICATE", "invalid", "duplicate identifier"),
            ("e", None, "aborted", "Run cancelled by user"),
            ("f", "  ", "aborted", "Run cancelled by user"),
            ("g", "throttled", "failed", "unknown status: throttled"),
            ("h", "Rejected", "failed", None),
        ],
        key=lambda r: tuple(map(str, r)),
    )


def test_aborted_without_run_error_has_null_reason(spark):
    result = build(spark, [record(1, "a", status=None)], [{"run": 1, "started": t(0)}])
    assert rows(result, "status", "failed_reason") == [("aborted", None)]


def test_op_type_rules_in_order(spark):
    p1, p2, p3 = '{"v": 1}', '{"v": 2}', '{"v": 3}'
    records = [
        # run 1
        record(1, "a", p1),
        record(1, "b", p1, status="rejected", status_message="x"),
        record(1, "c", p1, operation="append"),  # rule 1
        record(1, "d", p1, operation="delete"),  # rule 2 (no earlier state at all)
        record(1, None, p1, status="NULL"),  # null identifier
        # run 2
        record(2, "a", p1),  # rule 4: changed, same payload as last success
        record(2, "b", p2),  # rule 3: only a failed attempt before
        record(2, "c", p2),  # rule 4: the append left a succeeded state
        record(2, "d", p2),  # rule 3: last succeeded state is a removal
        # run 3
        record(3, "a", p1, operation="DELETE"),  # rule 2, case-insensitive
        record(3, "b", p3, status="rejected", status_message="y"),  # rule 4
        record(3, "c", p2, operation="Append"),  # rule 1 beats rule 4
        # run 4
        record(4, "a", p2),  # rule 3: removed in run 3
        record(4, "b", p2),  # rule 4, payload equals last success (run 2)
    ]
    runs = [{"run": n, "started": t(n * 60)} for n in (1, 2, 3, 4)]
    result = build(spark, records, runs)
    assert rows(result, "sync_run_id", "row_id", "op_type", "payload_changed") == sorted(
        [
            (1, "a", "added", True),
            (1, "b", "added", True),
            (1, "c", "added", True),
            (1, "d", "removed", False),
            (1, None, None, None),
            (2, "a", "changed", False),
            (2, "b", "added", True),
            (2, "c", "changed", True),
            (2, "d", "added", True),
            (3, "a", "removed", False),
            (3, "b", "changed", True),
            (3, "c", "added", True),
            (4, "a", "added", True),
            (4, "b", "changed", False),
        ],
        key=lambda r: tuple(map(str, r)),
    )


def test_append_behavior_makes_every_row_added(spark):
    records = [record(1, "a"), record(2, "a", '{"v": 2}'), record(3, "a", '{"v": 2}')]
    runs = [{"run": n, "started": t(n), "behavior": "append"} for n in (1, 2, 3)]
    result = build(spark, records, runs)
    assert rows(result, "sync_run_id", "op_type") == [(1, "added"), (2, "added"), (3, "added")]


def test_runs_are_ordered_by_start_time_then_run_id(spark):
    # Run 9 started before run 5; runs 7 and 8 start at the same time (run id breaks the tie).
    records = [
        record(5, "a", '{"v": 5}'),
        record(9, "a", '{"v": 9}'),
        record(8, "b", '{"v": 8}'),
        record(7, "b", '{"v": 7}'),
    ]
    runs = [
        {"run": 5, "started": t(60)},
        {"run": 9, "started": t(0)},
        {"run": 7, "started": t(30)},
        {"run": 8, "started": t(30)},
    ]
    result = build(spark, records, runs)
    assert rows(result, "sync_run_id", "row_id", "op_type") == [
        (5, "a", "changed"),
        (7, "b", "added"),
        (8, "b", "changed"),
        (9, "a", "added"),
    ]


def test_attempts_in_the_same_run_do_not_see_each_other(spark):
    records = [
        record(1, "a", '{"v": 1}', status="DUPLICATE", row_index=0),
        record(1, "a", '{"v": 2}', status="DUPLICATE", row_index=1),
        record(2, "a", '{"v": 2}', row_index=0),
        record(2, "a", '{"v": 3}', row_index=1),
    ]
    runs = [{"run": 1, "started": t(0)}, {"run": 2, "started": t(1)}]
    result = build(spark, records, runs)
    assert rows(result, "sync_run_id", "fields", "op_type", "status") == [
        (1, '{"v": 1}', "added", "invalid"),
        (1, '{"v": 2}', "added", "invalid"),
        (2, '{"v": 2}', "added", "succeeded"),
        (2, '{"v": 3}', "added", "succeeded"),
    ]


def test_state_in_a_run_is_its_last_succeeded_attempt(spark):
    # Run 1 holds two succeeded attempts of `a`; the later batch (.1) is the state.
    records = [
        record(1, "a", '{"v": 1}', batch_file="records_updated.0.parquet", batch_number=0),
        record(1, "a", '{"v": 2}', batch_file="records_updated.1.parquet", batch_number=1),
        record(2, "a", '{"v": 2}'),
    ]
    runs = [{"run": 1, "started": t(0)}, {"run": 2, "started": t(1)}]
    result = build(spark, records, runs).filter("sync_run_id = 2")
    assert rows(result, "op_type", "payload_changed") == [("changed", False)]


def test_exact_redeliveries_are_folded_keeping_the_first_batch(spark):
    early, late = t(0), t(5)
    records = [
        record(
            1,
            "a",
            batch_file="records_updated.1.parquet",
            batch_number=1,
            row_index=0,
            batch_started_at=late,
            status_message="second",
        ),
        record(
            1,
            "a",
            batch_file="records_updated.0.parquet",
            batch_number=0,
            row_index=7,
            batch_started_at=early,
            status_message="first",
        ),
        record(
            1, "a", batch_file="records_updated.2.parquet", batch_number=2, batch_started_at=None
        ),
        # Differences in status or payload are separate attempts, not re-deliveries.
        record(1, "a", status="rejected", batch_file="records_updated.3.parquet"),
        record(1, "a", '{"v": 2}', batch_file="records_updated.4.parquet"),
        # Null identifiers fold too (same payload, operation, status).
        record(1, None, status="NULL", row_index=1),
        record(1, None, status="NULL", row_index=2),
    ]
    result = build(spark, records, [{"run": 1, "started": t(0)}])
    assert rows(
        result, "row_id", "raw_status", "fields", "batch_file", "redelivery_count", "status_message"
    ) == sorted(
        [
            ("a", "succeeded", '{"v": 1}', "records_updated.0.parquet", 2, "first"),
            ("a", "rejected", '{"v": 1}', "records_updated.3.parquet", 0, None),
            ("a", "succeeded", '{"v": 2}', "records_updated.4.parquet", 0, None),
            (None, "NULL", '{"v": 1}', "records_updated.0.parquet", 1, None),
        ],
        key=lambda r: tuple(map(str, r)),
    )


def expected_log_id(sync_id, run_id, identifier, payload, operation, status) -> str:
    def tag(value):
        return "~" if value is None else f"{len(value)}:{value}"

    def sha256(text: str) -> str:
        return hashlib.sha256(text.encode("utf-8")).hexdigest()

    payload_hash = sha256(tag(payload))
    return sha256(
        "|".join([str(sync_id), str(run_id), tag(identifier), payload_hash, tag(operation),
                  tag(status)])
    )


def test_log_id_is_the_hash_of_the_fold_key_with_null_markers(spark):
    records = [
        record(1, "a", '{"v": 1}'),
        record(1, None, None, status=None, payload_problem="record_payload is null"),
        record(1, "~", '{"v": 1}'),
    ]
    result = build(spark, records, [{"run": 1, "started": t(0)}])
    assert rows(result, "log_id") == sorted(
        [
            (expected_log_id(10, 1, "a", '{"v": 1}', "upsert", "succeeded"),),
            (expected_log_id(10, 1, None, None, "upsert", None),),
            (expected_log_id(10, 1, "~", '{"v": 1}', "upsert", "succeeded"),),
        ]
    )


def test_invalid_payload_is_loaded_with_null_fields(spark):
    records = [record(1, "a", "[1,2]", payload_problem="record_payload is not a JSON object")]
    result = build(spark, records, [{"run": 1, "started": t(0)}])
    assert rows(result, "row_id", "fields", "payload_problem", "status") == [
        ("a", None, "record_payload is not a JSON object", "succeeded")
    ]


LATE_RECORDS = {
    1: [record(1, "a", '{"v": 1}'), record(1, "b", '{"v": 1}')],
    2: [record(2, "a", '{"v": 1}', operation="delete"), record(2, "b", '{"v": 2}')],
    3: [record(3, "a", '{"v": 1}'), record(3, "b", '{"v": 2}'), record(3, "c", '{"v": 1}')],
}
LATE_RUNS = {n: {"run": n, "started": t(n * 60)} for n in (1, 2, 3)}
COLUMNS = ["sync_run_id", "row_id", "op_type", "payload_changed", "status", "logged_at"]


def test_late_run_recomputes_later_runs_as_a_full_rebuild_would(spark):
    first = build(spark, LATE_RECORDS[1] + LATE_RECORDS[3], [LATE_RUNS[1], LATE_RUNS[3]])
    existing = spark.createDataFrame(first.collect(), first.schema)
    # Before run 2 is known, run 3's `a` is a change of run 1's state.
    assert rows(existing.filter("row_id = 'a'"), "sync_run_id", "op_type") == [
        (1, "added"),
        (3, "changed"),
    ]
    written = build(spark, LATE_RECORDS[2], [LATE_RUNS[2]], existing=existing, logged=LOGGED_2)
    # Runs 2 (new) and 3 (recomputed) are written; run 1 (before the cutoff) is not.
    assert rows(written, *COLUMNS) == [
        (2, "a", "removed", False, "succeeded", AT_2),
        (2, "b", "changed", True, "succeeded", AT_2),
        (3, "a", "added", True, "succeeded", AT_1),
        (3, "b", "changed", False, "succeeded", AT_1),
        (3, "c", "added", True, "succeeded", AT_1),
    ]
    full = build(spark, sum(LATE_RECORDS.values(), []), list(LATE_RUNS.values()))
    assert rows(written, *COLUMNS[:-1]) == rows(full.filter("sync_run_id >= 2"), *COLUMNS[:-1])


def test_new_run_after_all_loaded_runs_rewrites_only_itself(spark):
    first = build(spark, LATE_RECORDS[1] + LATE_RECORDS[2], [LATE_RUNS[1], LATE_RUNS[2]])
    existing = spark.createDataFrame(first.collect(), first.schema)
    written = build(spark, LATE_RECORDS[3], [LATE_RUNS[3]], existing=existing, logged=LOGGED_2)
    assert rows(written, *COLUMNS) == [
        (3, "a", "added", True, "succeeded", AT_2),
        (3, "b", "changed", False, "succeeded", AT_2),
        (3, "c", "added", True, "succeeded", AT_2),
    ]


def test_reloaded_run_keeps_logged_at_of_rows_it_already_had(spark):
    first = build(spark, LATE_RECORDS[1], [LATE_RUNS[1]])
    existing = spark.createDataFrame(first.collect(), first.schema)
    grown = LATE_RECORDS[1] + [record(1, "z", '{"v": 9}', batch_file="records_updated.1.parquet")]
    written = build(spark, grown, [LATE_RUNS[1]], existing=existing, logged=LOGGED_2)
    assert rows(written, "row_id", "logged_at") == [
        ("a", AT_1),
        ("b", AT_1),
        ("z", AT_2),
    ]


def test_reloaded_run_that_moved_later_recomputes_the_runs_it_passed(spark):
    first = build(
        spark, LATE_RECORDS[1] + LATE_RECORDS[2] + LATE_RECORDS[3], list(LATE_RUNS.values())
    )
    existing = spark.createDataFrame(first.collect(), first.schema)
    # Run 1's metadata is rewritten with a start time after run 3.
    moved = {"run": 1, "started": t(500)}
    written = build(spark, LATE_RECORDS[1], [moved], existing=existing, logged=LOGGED_2)
    full = build(spark, sum(LATE_RECORDS.values(), []), [moved, LATE_RUNS[2], LATE_RUNS[3]])
    assert rows(written, *COLUMNS[:-1]) == rows(full, *COLUMNS[:-1])


@pytest.mark.parametrize("other_sync", [11])
def test_syncs_are_independent(spark, other_sync):
    records = [record(1, "a"), record(2, "a", sync_id=other_sync)]
    runs = [{"run": 1, "started": t(0)}, {"run": 2, "started": t(1), "sync_id": other_sync}]
    result = build(spark, records, runs)
    assert rows(result, "sync_id", "op_type") == [(10, "added"), (other_sync, "added")]
