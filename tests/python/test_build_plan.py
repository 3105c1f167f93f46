"""The build plan on a hand-made manifest and committed runs: which runs a build loads, clears,
recomputes or leaves alone, each sync's cutoff, and the committed runs the plan keeps."""

from datetime import datetime, timedelta

import pytest

from sync_logs.canonical import plan as plan_rules

MANIFEST_SCHEMA = (
    "sync_id bigint, sync_run_id bigint, sync_run_started_at timestamp, manifest_version bigint, "
    "is_valid boolean, files array<struct<file_kind: string>>"
)
# A run folder's files in the lake (`files` of the manifest); [] once the folder left.
IN_LAKE = [("run_metadata",)]
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
            (10, 1, t(1), 1, True, IN_LAKE),  # unchanged, before the cutoff
            (10, 2, t(2, 30), 2, True, IN_LAKE),  # changed folder: reloaded (its start moved 30 s)
            (10, 3, t(3), 2, False, IN_LAKE),  # turned invalid: cleared
            (10, 4, t(4), 1, True, IN_LAKE),  # unchanged, after the cutoff: recomputed
            # run 5's folder left the lake: its rows stay, after the cutoff it is recomputed
            (10, 6, t(6), 1, True, IN_LAKE),  # new
            (20, 7, t(7), 1, True, IN_LAKE),  # unchanged sync
            (30, 8, t(8), 1, True, IN_LAKE),  # new sync
            # not a run folder (is_valid null): never planned
            (30, None, None, None, None, IN_LAKE),
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


def test_planned_runs_by_action_and_the_partitions_they_keep(build_plan, spark):
    actions = plan_rules.runs_by_action(plan_rules.planned_runs(build_plan))
    assert actions == {
        "load": [(10, 2), (10, 6), (30, 8)],
        "clear": [(10, 3)],
        "recompute": [(10, 4), (10, 5)],
    }
    assert plan_rules.sync_ids_of(actions) == [10, 30]
    assert plan_rules.sync_ids_of({}) == []
    table = spark.createDataFrame(
        [(sync_id, run) for sync_id in (10, 30) for run in range(1, 9)],
        "sync_id bigint, sync_run_id bigint",
    )
    kept = table.filter(plan_rules.in_runs(actions["recompute"]))
    assert sorted(tuple(row) for row in kept.collect()) == [(10, 4), (10, 5)]
    assert table.filter(plan_rules.in_runs([])).count() == 0


def test_committed_runs_are_as_sync_runs_held_them(build_plan):
    committed = plan_rules.committed_runs(build_plan)
    assert sorted(tuple(row) for row in committed.collect()) == [
        (10, run, t(run), 1) for run in (1, 2, 3, 4, 5)
    ] + [(20, 7, t(7), 1)]


def test_in_order_runs_touch_nothing_but_themselves(spark):
    committed = spark.createDataFrame([(10, 1, t(1), 1)], plan_rules.COMMITTED_SCHEMA)
    manifest = spark.createDataFrame(
        [(10, 1, t(1), 1, True, IN_LAKE), (10, 2, t(2), 1, True, IN_LAKE)], MANIFEST_SCHEMA
    )
    planned = plan_rules.planned_runs(plan_rules.build_plan(manifest, committed))
    assert [(row["sync_run_id"], row["action"]) for row in planned.collect()] == [(2, "load")]


def test_the_stored_plan_stays_while_it_has_no_action_and_the_same_inputs(spark, build_plan):
    runs = spark.createDataFrame([(10, 1, t(1), 1, True, IN_LAKE)], MANIFEST_SCHEMA)
    committed = spark.createDataFrame([(10, 1, t(1), 1)], plan_rules.COMMITTED_SCHEMA)
    # after a build with actions, the plan is computed again and written
    written = plan_rules.current_plan(runs, committed, build_plan).localCheckpoint()
    assert written.drop("inputs_fingerprint").collect() == (
        plan_rules.build_plan(runs, committed).drop("inputs_fingerprint").collect()
    )
    # then the stored plan stays as it is: the model returns the table itself
    assert plan_rules.current_plan(runs, committed, written) is written
    # inputs that changed without an action (a run reloaded and committed) give a new plan
    reloaded = spark.createDataFrame([(10, 1, t(1), 2, True, IN_LAKE)], MANIFEST_SCHEMA)
    recommitted = spark.createDataFrame([(10, 1, t(1), 2)], plan_rules.COMMITTED_SCHEMA)
    again = plan_rules.current_plan(reloaded, recommitted, written)
    assert again is not written and plan_rules.planned_runs(again).count() == 0
    assert again.first()["inputs_fingerprint"] != written.first()["inputs_fingerprint"]
    # and so does a new run, with its action
    new_run = runs.unionByName(
        spark.createDataFrame([(10, 2, t(2), 1, True, IN_LAKE)], MANIFEST_SCHEMA)
    )
    planned = plan_rules.planned_runs(plan_rules.current_plan(new_run, committed, written))
    assert planned.count() == 1


def test_inputs_fingerprint_follows_the_run_rows_and_the_committed_runs(spark):
    def fingerprint(manifest_rows, committed_rows, uncommitted_rows=()) -> str:
        return plan_rules.inputs_fingerprint(
            spark.createDataFrame(manifest_rows, MANIFEST_SCHEMA),
            spark.createDataFrame(committed_rows, plan_rules.COMMITTED_SCHEMA),
            spark.createDataFrame(list(uncommitted_rows), plan_rules.UNCOMMITTED_SCHEMA),
        )

    base = fingerprint([(10, 1, t(1), 1, True, IN_LAKE)], [(10, 1, t(1), 1)])
    assert base == fingerprint([(10, 1, t(1), 1, True, IN_LAKE)], [(10, 1, t(1), 1)])
    # rows that are not run folders are not the plan's inputs
    not_a_run = (10, None, None, None, None, IN_LAKE)
    assert base == fingerprint([(10, 1, t(1), 1, True, IN_LAKE), not_a_run], [(10, 1, t(1), 1)])
    assert len({
        base,
        fingerprint([(10, 1, t(1), 1, False, IN_LAKE)], [(10, 1, t(1), 1)]),
        fingerprint([(10, 1, t(1), 2, True, IN_LAKE)], [(10, 1, t(1), 1)]),
        fingerprint([(10, 1, t(1, 1), 1, True, IN_LAKE)], [(10, 1, t(1), 1)]),
        fingerprint([(10, 1, t(1), 1, True, IN_LAKE)], []),
        fingerprint([(10, 1, t(1), 1, True, IN_LAKE)], [(10, 1, t(1), 2)]),
        fingerprint([], [(10, 1, t(1), 1)]),
        fingerprint([(10, 1, t(1), 1, True, [])], [(10, 1, t(1), 1)]),
        fingerprint([(10, 1, t(1), 1, True, IN_LAKE)], [(10, 1, t(1), 1)], [(10, 2, t(2))]),
    }) == 9


def test_frames_collected_together_come_back_as_each_collected_alone(spark):
    """The build plan reads its inputs in one job; their rows, and so the fingerprint of a plan
    stored by an earlier release, are exactly what a collect of each gives (repr: 1, 1.0 and
    True are equal in Python)."""
    frames = {
        "runs": spark.createDataFrame(
            [(1, 2**53 + 1, True, "a"), (2, None, False, None)],
            "id bigint, micros bigint, flag boolean, name string",
        ).withColumnRenamed("flag", "exists(files, x.kind = 'a')"),  # a name with dots
        "manifest": plan_rules.manifest_inputs(
            spark.createDataFrame([(10, 1, t(1), 1, True, IN_LAKE)], MANIFEST_SCHEMA)
        ),
        "none": spark.createDataFrame([], "id bigint"),
        "state": spark.createDataFrame([(None, "v1:3:ab")], "has_actions boolean, fp string"),
    }
    together = plan_rules.collected_each(frames)
    assert repr(together) == repr({n: plan_rules.collected(f) for n, f in frames.items()})


def plan_rows(spark, manifest_rows, committed_rows, uncommitted_rows=()) -> list[tuple]:
    """(run, sync_run_started_at, action, is_superseded, cutoff run) of each plan row."""
    built = plan_rules.build_plan(
        spark.createDataFrame(manifest_rows, MANIFEST_SCHEMA),
        spark.createDataFrame(committed_rows, plan_rules.COMMITTED_SCHEMA),
        uncommitted=spark.createDataFrame(list(uncommitted_rows), plan_rules.UNCOMMITTED_SCHEMA),
    )
    columns = ["sync_run_id", "sync_run_started_at", "action", "is_superseded"]
    return sorted(tuple(row) for row in built.select(*columns, "cutoff_sync_run_id").collect())


def test_a_valid_run_whose_folder_left_before_its_commit_is_not_loaded(spark):
    """Issue 37, case 2: the folder's record files are gone, so the run is not loaded (a full
    build would not see it). A committed run that left keeps its rows, unless its current
    version was never committed: then it is cleared, as a full build would not load it."""
    assert plan_rows(
        spark,
        [
            (10, 1, t(1), 1, True, []),  # committed, left the lake: kept
            (10, 2, t(2), 2, True, []),  # committed as version 1, left as version 2: cleared
            (10, 3, t(3), 1, True, []),  # never committed, left the lake: not loaded
            (10, 4, t(4), 1, True, IN_LAKE),  # new
        ],
        [(10, 1, t(1), 1), (10, 2, t(2), 1)],
    ) == [
        (1, None, None, None, None),
        (2, t(2), "clear", True, 2),
        (3, None, None, None, None),
        (4, t(4), "load", False, 2),
    ]


def test_rows_of_uncommitted_runs_are_cleared_unless_loaded_again(spark):
    """Issue 37, case 1: a failed build wrote runs 2 and 3 and did not commit them. Run 2 is
    invalid now: cleared from its uncommitted position; run 3 is loaded again, superseding its
    rows; committed run 4 comes after the cutoff."""
    assert plan_rows(
        spark,
        [
            (20, 1, t(1), 1, True, IN_LAKE),
            (20, 2, t(2), 2, False, IN_LAKE),
            (20, 3, t(3), 2, True, IN_LAKE),
            (20, 4, t(4), 1, True, IN_LAKE),
            (20, 5, t(5), 1, True, []),  # left the lake: its uncommitted rows are cleared too
        ],
        [(20, 1, t(1), 1), (20, 4, t(4), 1)],
        [(20, 2, t(2)), (20, 3, t(3, -30)), (20, 5, t(5))],
    ) == [
        (1, None, None, None, None),
        (2, t(2), "clear", True, 2),
        (3, t(3), "load", True, 2),
        (4, t(4), "recompute", False, 2),
        (5, t(5), "clear", True, 2),
    ]


def test_kept_runs_are_the_loaded_and_the_committed_runs_not_cleared(spark):
    manifest = spark.createDataFrame(
        [(10, run, t(run), 1, True, IN_LAKE) for run in (1, 2, 3, 4)], MANIFEST_SCHEMA
    )
    committed = spark.createDataFrame(
        [(10, 1, t(1), 1), (10, 2, t(2), 1)], plan_rules.COMMITTED_SCHEMA
    )
    planned = spark.createDataFrame(
        [(10, 2, t(2), "clear", True, t(2), 2), (10, 3, t(3), "load", False, t(2), 2)],
        ", ".join(
            ["sync_id bigint, sync_run_id bigint, sync_run_started_at timestamp, action string",
             "is_superseded boolean, cutoff_started_at timestamp, cutoff_sync_run_id bigint"]
        ),
    )
    kept = plan_rules.kept_runs(manifest, planned, committed)
    assert sorted(row["sync_run_id"] for row in kept.collect()) == [1, 3]
