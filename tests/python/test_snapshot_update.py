"""The snapshot's incremental update: a sync that only gains newer runs is updated from its
previous state and the new rows, and must equal the snapshot rebuilt from its whole changelog;
late runs and states written by uncommitted runs take the full way."""

import pytest
from test_sync_snapshot_and_runs import CHANGELOG_SCHEMA, RUN_SCHEMA, attempt, t

from sync_logs.canonical import snapshot as snapshot_rules

PLAN_SCHEMA = (
    "sync_id bigint, sync_run_id bigint, sync_run_started_at timestamp, action string, "
    "is_superseded boolean, cutoff_started_at timestamp, cutoff_sync_run_id bigint"
)
COMMITTED_SCHEMA = (
    "sync_id bigint, sync_run_id bigint, sync_run_started_at timestamp, manifest_version bigint"
)
HISTORY = [
    attempt(1, "a", "added", "succeeded", t(61), t(62)),
    attempt(1, "b", "added", "succeeded", t(61), t(62)),
    attempt(1, "c", "added", "failed", t(61), t(62)),
    attempt(2, "a", "changed", "succeeded", t(121), t(123), '{"v": 2}'),
    attempt(2, "b", "removed", "succeeded", t(121), t(122)),
    attempt(2, "d", "added", "aborted"),
]
NEW_RUN = [
    attempt(3, "b", "added", "succeeded", t(181), t(182), '{"v": 3}'),  # comes back
    attempt(3, "c", "added", "succeeded", t(181), None),  # first success
    attempt(3, "e", "added", "failed", t(181), t(182)),  # new row, failed
    attempt(3, None, None, "invalid"),
]
COLUMNS = snapshot_rules.SNAPSHOT_COLUMNS


def frame(spark, rows, schema):
    return spark.createDataFrame(rows, schema)


def plan_of(spark, run: int, cutoff: int, superseded: bool = False):
    return frame(
        spark, [(10, run, t(run * 60), "load", superseded, t(cutoff * 60), cutoff)], PLAN_SCHEMA
    )


def committed_of(spark, *runs: int):
    return frame(spark, [(10, run, t(run * 60), 1) for run in runs], COMMITTED_SCHEMA)


def runs_of(spark, *runs: int):
    return frame(spark, [(10, run, t(run * 60)) for run in runs], RUN_SCHEMA)


def rows(result):
    return sorted(tuple(row) for row in result.select(*COLUMNS).collect())


@pytest.fixture
def rebuilt(spark):
    changelog = frame(spark, HISTORY + NEW_RUN, CHANGELOG_SCHEMA)
    return changelog, rows(snapshot_rules.build_snapshot(changelog, runs_of(spark, 1, 2, 3)))


def test_newer_run_updates_the_previous_state(spark, rebuilt):
    changelog, expected = rebuilt
    previous = snapshot_rules.build_snapshot(
        frame(spark, HISTORY, CHANGELOG_SCHEMA), runs_of(spark, 1, 2)
    )
    plan = plan_of(spark, 3, 3)
    committed = committed_of(spark, 1, 2)
    appended = snapshot_rules.appended_syncs(plan, previous, committed).collect()
    assert [r["sync_id"] for r in appended] == [
        10
    ]
    updated = snapshot_rules.update_snapshot(
        previous, changelog, plan, committed, runs_of(spark, 1, 2, 3)
    )
    assert rows(updated) == expected
    # b came back: first added in run 1, not the removal's run
    assert rows(updated.filter("row_id = 'b'"))[0][COLUMNS.index("first_added_at")] == t(
        62
    ).replace(tzinfo=None)


def test_state_written_by_an_uncommitted_run_takes_the_full_way(spark, rebuilt):
    changelog, expected = rebuilt
    # an earlier build wrote the state with run 3, then failed before committing it
    previous = snapshot_rules.build_snapshot(changelog, runs_of(spark, 1, 2, 3))
    plan = plan_of(spark, 3, 3)
    committed = committed_of(spark, 1, 2)
    assert snapshot_rules.appended_syncs(plan, previous, committed).count() == 0
    updated = snapshot_rules.update_snapshot(
        previous, changelog, plan, committed, runs_of(spark, 1, 2, 3)
    )
    assert rows(updated) == expected


def test_late_run_takes_the_full_way(spark):
    late = [attempt(0, "a", "added", "succeeded", t(1), t(2), '{"v": 0}')]
    changelog = frame(spark, late + HISTORY, CHANGELOG_SCHEMA)
    previous = snapshot_rules.build_snapshot(
        frame(spark, HISTORY, CHANGELOG_SCHEMA), runs_of(spark, 1, 2)
    )
    plan = plan_of(spark, 0, 0)
    committed = committed_of(spark, 1, 2)
    assert snapshot_rules.appended_syncs(plan, previous, committed).count() == 0
    runs = runs_of(spark, 0, 1, 2)
    updated = snapshot_rules.update_snapshot(previous, changelog, plan, committed, runs)
    assert rows(updated) == rows(snapshot_rules.build_snapshot(changelog, runs))
