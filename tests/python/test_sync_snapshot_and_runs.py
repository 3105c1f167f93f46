"""sync_snapshot membership and sync_runs counters, from hand-made changelog rows."""

from datetime import UTC, datetime, timedelta

from sync_logs.canonical import runs as run_rules
from sync_logs.canonical import snapshot as snapshot_rules

T0 = datetime(2026, 10, 1, 6, 0, tzinfo=UTC)
CHANGELOG_SCHEMA = (
    "sync_id bigint, sync_run_id bigint, sync_run_started_at timestamp, row_id string, "
    "op_type string, status string, failed_reason string, fields string, split_group string, "
    "log_id string, batch_started_at timestamp, batch_ended_at timestamp, batch_type string, "
    "batch_number int, batch_row_index bigint, raw_status string, redelivery_count int, "
    "payload_problem string, payload_truncated boolean, batch_file string, "
    "timestamp_problem string"
)
RUN_SCHEMA = "sync_id bigint, sync_run_id bigint, sync_run_started_at timestamp"


def t(minutes: float) -> datetime:
    return T0 + timedelta(minutes=minutes)


def n(minutes: float) -> datetime:
    """t() as Spark returns it: naive, in the session time zone (UTC)."""
    return t(minutes).replace(tzinfo=None)


def attempt(run, row_id, op_type, status, started=None, ended=None, fields='{"v": 1}', **kw):
    raw = {"succeeded": "succeeded", "failed": "rejected", "invalid": "DUPLICATE", "aborted": None}[
        status
    ]
    return (
        kw.get("sync_id", 10),
        run,
        t(run * 60),
        row_id,
        op_type,
        status,
        "boom" if status == "failed" else None,
        fields,
        kw.get("split_group"),
        f"log-{run}-{row_id}-{kw.get('index', 0)}",
        started,
        ended,
        "records_updated",
        0,
        kw.get("index", 0),
        kw.get("raw", raw),
        kw.get("redelivered", 0),
        kw.get("payload_problem"),
        kw.get("truncated", False),
        "records_updated.0.parquet",
        kw.get("timestamp_problem"),
    )


def test_snapshot_latest_attempt_membership_and_times(spark):
    rows = [
        # a: added in run 1, changed (succeeded) in run 2, not in run 3 -> unchanged
        attempt(1, "a", "added", "succeeded", t(61), t(62)),
        attempt(2, "a", "changed", "succeeded", t(121), t(123), '{"v": 2}'),
        # b: added run 1, removal succeeded in run 3 -> absent (is_removed)
        attempt(1, "b", "added", "succeeded", t(61), t(62)),
        attempt(3, "b", "removed", "succeeded", t(181), t(182)),
        # c: removal failed in run 3 -> present, changed / failed (see the next test)
        attempt(1, "c", "added", "succeeded", t(61), None),
        attempt(3, "c", "removed", "failed", t(181), t(182)),
        # d: first add failed (run 1), re-added in run 3 -> added in the latest run
        attempt(1, "d", "added", "failed", t(61), t(62)),
        attempt(3, "d", "added", "succeeded", None, None),
        # e: never attempted successfully, aborted in run 2 -> unchanged, no success times
        attempt(2, "e", "added", "aborted"),
        # null row ids are never in the snapshot
        attempt(3, None, None, "invalid"),
    ]
    changelog = spark.createDataFrame(rows, CHANGELOG_SCHEMA)
    runs = spark.createDataFrame([(10, n, t(n * 60)) for n in (1, 2, 3)], RUN_SCHEMA)
    result = snapshot_rules.build_snapshot(changelog, runs)
    got = sorted(
        tuple(r)
        for r in result.select(
            "row_id",
            "sync_run_id",
            "op_type",
            "status",
            "failed_reason",
            "fields",
            "last_attempted_at",
            "last_succeeded_at",
            "first_added_at",
            "is_removed",
        ).collect()
    )
    assert got == [
        ("a", 2, "unchanged", "succeeded", None, '{"v": 2}', n(121), n(123), n(62), False),
        ("b", 3, "removed", "succeeded", None, '{"v": 1}', n(181), n(182), n(62), True),
        ("c", 3, "changed", "failed", "boom", '{"v": 1}', n(181), n(61), n(61), False),
        ("d", 3, "added", "succeeded", None, '{"v": 1}', n(180), n(180), n(180), False),
        ("e", 2, "unchanged", "aborted", None, '{"v": 1}', n(120), None, None, False),
    ]


SNAPSHOT_ROW = ["row_id", "sync_run_id", "op_type", "status", "failed_reason", "fields",
                "last_attempted_at", "last_succeeded_at", "first_added_at", "latest_op_type",
                "is_removed"]
# Rows added in run 1 whose removal did not succeed, and what their snapshot row must be:
# still in the model (the destination holds the row), op_type `changed` (the spec's snapshot
# has no `removed`), everything else from the removal attempt, the success times from run 1.
FAILED_REMOVALS = [
    # (row, run of the removal, its status) -> op_type: `unchanged` once a later run passed
    ("f", 3, "failed", "changed"),
    ("g", 3, "aborted", "changed"),
    ("h", 3, "invalid", "changed"),
    ("i", 2, "failed", "unchanged"),
]


def failed_removals(spark, runs=(1, 2, 3)):
    rows = []
    for row_id, run, status, _ in FAILED_REMOVALS:
        rows.append(attempt(1, row_id, "added", "succeeded", t(61), t(62)))
        rows.append(attempt(run, row_id, "removed", status, t(run * 60 + 1), None, '{"v": 9}'))
    changelog = spark.createDataFrame(rows, CHANGELOG_SCHEMA)
    return changelog, spark.createDataFrame([(10, r, t(r * 60)) for r in runs], RUN_SCHEMA)


def expected_failed_removals():
    return sorted(
        (row_id, run, op_type, status, "boom" if status == "failed" else None, '{"v": 9}',
         n(run * 60 + 1), n(62), n(62), "removed", False)
        for row_id, run, status, op_type in FAILED_REMOVALS
    )


def test_a_removal_that_did_not_succeed_leaves_a_changed_row(spark):
    changelog, runs = failed_removals(spark)
    result = snapshot_rules.build_snapshot(changelog, runs)
    assert sorted(tuple(r) for r in result.select(*SNAPSHOT_ROW).collect()) == (
        expected_failed_removals()
    )


def test_a_failed_removal_in_a_newer_run_updates_the_state_to_changed(spark):
    """The incremental path (previous state plus a newer run) gives the same row."""
    changelog, runs = failed_removals(spark)
    previous = snapshot_rules.build_snapshot(
        changelog.filter("sync_run_id = 1"), runs.filter("sync_run_id = 1")
    )
    updated = snapshot_rules.updated_states(previous, changelog.filter("sync_run_id > 1"))
    result = snapshot_rules.snapshot_rows(updated, runs)
    assert sorted(tuple(r) for r in result.select(*SNAPSHOT_ROW).collect()) == (
        expected_failed_removals()
    )


def test_snapshot_unchanged_when_latest_run_has_no_records(spark):
    changelog = spark.createDataFrame(
        [attempt(1, "a", "added", "succeeded", t(61), t(62))], CHANGELOG_SCHEMA
    )
    # Run 2 loaded with zero records: every row is unchanged relative to it.
    runs = spark.createDataFrame([(10, 1, t(60)), (10, 2, t(120))], RUN_SCHEMA)
    result = snapshot_rules.build_snapshot(changelog, runs)
    assert [tuple(r) for r in result.select("row_id", "op_type").collect()] == [("a", "unchanged")]


def test_run_counters(spark):
    rows = [
        attempt(1, "a", "added", "succeeded"),
        attempt(1, "b", "added", "failed"),
        attempt(1, "c", "added", "aborted"),
        attempt(1, "d", "added", "invalid"),
        attempt(1, "e", "changed", "succeeded", redelivered=2),
        attempt(1, "f", "changed", "failed"),
        attempt(1, "g", "removed", "succeeded"),
        attempt(1, "h", "removed", "aborted"),
        attempt(1, None, None, "invalid", raw="NULL"),
        attempt(1, "i", "changed", "failed", raw="throttled", payload_problem="x"),
        attempt(1, "j", "changed", "succeeded", truncated=True),
        attempt(1, "k", "changed", "succeeded", timestamp_problem="batch_ended_at is not ..."),
    ]
    counters = run_rules.run_counters(spark.createDataFrame(rows, CHANGELOG_SCHEMA))
    row = counters.collect()[0].asDict()
    assert {k: v for k, v in row.items() if k not in ("sync_id", "sync_run_id")} == {
        "num_planned_add": 3,
        "num_attempted_add": 2,
        "num_succeeded_add": 1,
        "num_failed_add": 1,
        "num_planned_change": 5,
        "num_attempted_change": 5,
        "num_succeeded_change": 3,
        "num_failed_change": 2,
        "num_planned_remove": 2,
        "num_attempted_remove": 1,
        "num_succeeded_remove": 1,
        "num_failed_remove": 0,
        "num_invalid": 2,
        "num_changelog_rows": 12,
        "num_folded": 2,
        "num_payload_errors": 1,
        "num_payloads_truncated": 1,
        "num_unknown_status": 1,
        "num_timestamp_errors": 1,
    }


MANIFEST_SCHEMA = (
    "org_id bigint, sync_id bigint, sync_run_id bigint, workspace_id bigint, primary_key string, "
    "destination_type string, model_name string, model_id bigint, sync_run_status string, "
    "sync_run_error string, sync_run_started_at timestamp, sync_run_finished_at timestamp, "
    "behavior string, split_group string, source_id bigint, source_object_id bigint, "
    "destination_id bigint, destination_object_id bigint, source_type string, "
    "destination_object_type string, run_folder string, fingerprint string, "
    "manifest_version bigint"
)
FILES_SCHEMA = (
    "sync_id bigint, sync_run_id bigint, manifest_version bigint, num_rows bigint, "
    "is_loaded boolean"
)


def test_runs_num_records_counts_loaded_files_only_and_zero_record_runs_exist(spark):
    def run(run_id):
        return (
            1,
            10,
            run_id,
            7,
            "id",
            "Braze::Connection",
            "m",
            3,
            "succeeded",
            None,
            t(run_id),
            None,
            "upsert",
            None,
            5,
            51,
            8,
            81,
            "snowflake",
            "Braze::Users",
            f"lake/1/10/{run_id}",
            "fp",
            1,
        )

    manifest = spark.createDataFrame([run(1), run(2)], MANIFEST_SCHEMA)
    changelog = spark.createDataFrame(
        [attempt(1, "a", "added", "succeeded", redelivered=1), attempt(1, "b", "added", "failed")],
        CHANGELOG_SCHEMA,
    )
    files = spark.createDataFrame(
        [(10, 1, 1, 3, True), (10, 1, 1, None, False), (10, 1, 0, 99, True)], FILES_SCHEMA
    )
    result = run_rules.build_runs(manifest, changelog, files)
    got = {
        r["sync_run_id"]: (
            r["num_records"],
            r["num_redelivered"],
            r["num_files"],
            r["num_quarantined_files"],
            r["num_planned_add"],
        )
        for r in result.collect()
    }
    # Run 1: 3 rows in its loaded file (the stale version-0 row is ignored), 2 changelog rows.
    assert got == {1: (3, 1, 2, 1, 2), 2: (0, 0, 0, 0, 0)}
