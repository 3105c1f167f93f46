"""The build plan on a hand-made manifest and committed runs: which runs a build loads, clears,
recomputes or leaves alone, each sync's cutoff, and the committed runs the plan keeps."""

from datetime import datetime, timedelta

import pytest

from sync_logs.canonical import plan as plan_rules

MANIFEST_SCHEMA = (
    "sync_id bigint, sync_run_id bigint, sync_run_started_at timestamp, manifest_version bigint, "
    "is_valid boolean"
)
T0 = datetime(2026, 10, 1, 8, 0)


def t(run: int, seconds: int = 0) -> datetime:
    """Run `run` starts `run` hours after T0."""
    return T0 + timedelta(hours=run, seconds=seconds)


@pytest.fixture(scope="module")
def build_plan(spark):
    committed = spark.createDataFrame(
        [(10, run, t(run), 1) for run in (1, 2, 3, 4, 5)] + [(20, 7, t(7), 1)],
        plan_rules.COMMITTED_SCHEMA,
    )
    manifest = spark.createDataFrame(
        [
            (10, 1, t(1), 1, True),  # unchanged, before the cutoff
            (10, 2, t(2, 30), 2, True),  # changed folder: reloaded (its start moved 30 s)
            (10, 3, t(3), 2, False),  # turned invalid: cleared
            (10, 4, t(4), 1, True),  # unchanged, after the cutoff: recomputed
            # run 5's folder left the lake: its rows stay, after the cutoff it is recomputed
            (10, 6, t(6), 1, True),  # new
            (20, 7, t(7), 1, True),  # unchanged sync
            (30, 8, t(8), 1, True),  # new sync
            (30, None, None, None, None),  # not a run folder (is_valid null): never planned
        ],
        MANIFEST_SCHEMA,
    )
    return plan_rules.build_plan(manifest, committed)


def test_every_committed_or_planned_run_has_one_row(build_plan):
    cutoff_10 = (t(2), 2)
    assert build_plan.columns == plan_rules.PLAN_COLUMNS
    rows = build_plan.drop("inputs_fingerprint").collect()
    assert sorted(tuple(row) for row in rows) == [
        (10, 1, None, None, None, None, None, t(1), 1),
        (10, 2, t(2, 30), "load", True, *cutoff_10, t(2), 1),
        (10, 3, t(3), "clear", True, *cutoff_10, t(3), 1),
        (10, 4, t(4), "recompute", False, *cutoff_10, t(4), 1),
        (10, 5, t(5), "recompute", False, *cutoff_10, t(5), 1),
        (10, 6, t(6), "load", False, *cutoff_10, None, None),
        (20, 7, None, None, None, None, None, t(7), 1),
        (30, 8, t(8), "load", False, t(8), 8, None, None),
    ]


def test_planned_runs_are_the_rows_with_an_action(build_plan):
    planned = plan_rules.planned_runs(build_plan)
    assert planned.columns == plan_rules.PLANNED_COLUMNS
    assert sorted((row["sync_id"], row["sync_run_id"]) for row in planned.collect()) == [
        (10, 2), (10, 3), (10, 4), (10, 5), (10, 6), (30, 8),
    ]


def test_committed_runs_are_as_sync_runs_held_them(build_plan):
    committed = plan_rules.committed_runs(build_plan)
    assert sorted(tuple(row) for row in committed.collect()) == [
        (10, run, t(run), 1) for run in (1, 2, 3, 4, 5)
    ] + [(20, 7, t(7), 1)]


def test_in_order_runs_touch_nothing_but_themselves(spark):
    committed = spark.createDataFrame([(10, 1, t(1), 1)], plan_rules.COMMITTED_SCHEMA)
    manifest = spark.createDataFrame(
        [(10, 1, t(1), 1, True), (10, 2, t(2), 1, True)], MANIFEST_SCHEMA
    )
    planned = plan_rules.planned_runs(plan_rules.build_plan(manifest, committed))
    assert [(row["sync_run_id"], row["action"]) for row in planned.collect()] == [(2, "load")]


def test_the_stored_plan_stays_while_it_has_no_action_and_the_same_inputs(spark, build_plan):
    runs = spark.createDataFrame([(10, 1, t(1), 1, True)], MANIFEST_SCHEMA)
    committed = spark.createDataFrame([(10, 1, t(1), 1)], plan_rules.COMMITTED_SCHEMA)
    # after a build with actions, the plan is computed again and written
    written = plan_rules.current_plan(runs, committed, build_plan).localCheckpoint()
    assert written.drop("inputs_fingerprint").collect() == (
        plan_rules.build_plan(runs, committed).drop("inputs_fingerprint").collect()
    )
    # then the stored plan stays as it is: the model returns the table itself
    assert plan_rules.current_plan(runs, committed, written) is written
    # inputs that changed without an action (a run reloaded and committed) give a new plan
    reloaded = spark.createDataFrame([(10, 1, t(1), 2, True)], MANIFEST_SCHEMA)
    recommitted = spark.createDataFrame([(10, 1, t(1), 2)], plan_rules.COMMITTED_SCHEMA)
    again = plan_rules.current_plan(reloaded, recommitted, written)
    assert again is not written and plan_rules.planned_runs(again).count() == 0
    assert again.first()["inputs_fingerprint"] != written.first()["inputs_fingerprint"]
    # and so does a new run, with its action
    new_run = runs.unionByName(spark.createDataFrame([(10, 2, t(2), 1, True)], MANIFEST_SCHEMA))
    planned = plan_rules.planned_runs(plan_rules.current_plan(new_run, committed, written))
    assert planned.count() == 1


def test_inputs_fingerprint_follows_the_run_rows_and_the_committed_runs(spark):
    def fingerprint(manifest_rows, committed_rows) -> str:
        return plan_rules.inputs_fingerprint(
            spark.createDataFrame(manifest_rows, MANIFEST_SCHEMA),
            spark.createDataFrame(committed_rows, plan_rules.COMMITTED_SCHEMA),
        )

    base = fingerprint([(10, 1, t(1), 1, True)], [(10, 1, t(1), 1)])
    assert base == fingerprint([(10, 1, t(1), 1, True)], [(10, 1, t(1), 1)])
    # rows that are not run folders are not the plan's inputs
    assert base == fingerprint([(10, 1, t(1), 1, True), (10, None, None, None, None)],
                               [(10, 1, t(1), 1)])
    assert len({
        base,
        fingerprint([(10, 1, t(1), 1, False)], [(10, 1, t(1), 1)]),
        fingerprint([(10, 1, t(1), 2, True)], [(10, 1, t(1), 1)]),
        fingerprint([(10, 1, t(1, 1), 1, True)], [(10, 1, t(1), 1)]),
        fingerprint([(10, 1, t(1), 1, True)], []),
        fingerprint([(10, 1, t(1), 1, True)], [(10, 1, t(1), 2)]),
        fingerprint([], [(10, 1, t(1), 1)]),
    }) == 7
