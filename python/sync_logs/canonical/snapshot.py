"""Snapshot: the latest state of every row per sync (`int_sync_logs__snapshot`; the view
`sync_snapshot` shows the rows still in the model).

A build writes the syncs it touches and nothing else. A sync that only gained runs newer than
everything its state holds is updated from its previous state and the new runs' changelog rows,
so the cost follows the new data; a sync with a late, changed or cleared run is recomputed from
its whole changelog. Rows whose latest attempt is a succeeded `removed` stay in the state with
`is_removed = true` (their first addition and last success still count if they come back);
`sync_snapshot` leaves them out. A removal that did not succeed leaves the row in the
destination: its snapshot op_type is `changed` (`snapshot_op_type`).
"""

from pyspark.sql import Column, DataFrame, Window
from pyspark.sql import functions as F

from sync_logs.canonical.ordering import attempt_order
from sync_logs.canonical.plan import (
    in_runs,
    kept_runs,
    runs_by_action,
    sync_ids_of,
    without_cleared,
)

RUN = ["sync_id", "sync_run_id"]
SNAPSHOT_COLUMNS = [
    "sync_run_id",
    "op_type",
    "row_id",
    "status",
    "failed_reason",
    "fields",
    "split_group",
    "last_attempted_at",
    "last_succeeded_at",
    "first_added_at",
    "latest_op_type",
    "latest_log_id",
    "is_removed",
    "sync_id",
]


def latest_runs(runs: DataFrame) -> DataFrame:
    """Per sync: the run id of its most recent loaded run."""
    return runs.groupBy("sync_id").agg(
        F.max(F.struct("sync_run_started_at", "sync_run_id"))["sync_run_id"].alias(
            "latest_sync_run_id"
        )
    )


def row_states(changelog: DataFrame) -> DataFrame:
    """Per (sync_id, row_id) of `changelog`: latest attempt, last success, first addition.

    An attempt was sent when its batch started (else when its run started), and succeeded when
    its batch ended (else when it was sent): a record's success is known when its batch
    finishes. The same rule as the macro `snapshot_row_times` (tests/data/snapshot_times.csv)."""
    success_time = F.coalesce(
        F.col("batch_ended_at"), F.col("batch_started_at"), F.col("sync_run_started_at")
    )
    latest = F.struct(
        "sync_run_id",
        "op_type",
        "status",
        "failed_reason",
        "fields",
        "split_group",
        "log_id",
        F.coalesce(F.col("batch_started_at"), F.col("sync_run_started_at")).alias("attempted_at"),
    )
    # One window, not a groupBy: max_by of a struct is a sort aggregate, which sorts the
    # payloads twice (before and after the shuffle); the window sorts them once.
    newest_first = Window.partitionBy("sync_id", "row_id").orderBy(attempt_order().desc())
    whole_row = newest_first.rowsBetween(Window.unboundedPreceding, Window.unboundedFollowing)
    succeeded = F.col("status") == "succeeded"
    return (
        changelog.filter(F.col("row_id").isNotNull())
        .select(
            "sync_id",
            "row_id",
            latest.alias("latest"),
            F.row_number().over(newest_first).alias("_newest"),
            F.max(F.when(succeeded, success_time)).over(whole_row).alias("last_succeeded_at"),
            F.min(F.when(succeeded & (F.col("op_type") == "added"), success_time))
            .over(whole_row)
            .alias("first_added_at"),
        )
        .filter(F.col("_newest") == 1)
        .drop("_newest")
    )


def snapshot_op_type(op_type: Column, status: Column, in_latest_run: Column) -> Column:
    """The snapshot's op_type of a row from its latest attempt: `unchanged` unless the attempt
    is in the sync's latest run; there, the attempt's op_type, except that a removal that did
    not succeed is `changed` (the row stays in the destination, in its last synced state; the
    status says the removal failed). A succeeded removal keeps `removed` (`is_removed`: not in
    `sync_snapshot`). The same rule as the macro `snapshot_op_type`."""
    failed_removal = (op_type == "removed") & ~status.eqNullSafe("succeeded")
    return (
        F.when(~F.coalesce(in_latest_run, F.lit(False)), F.lit("unchanged"))
        .when(failed_removal, F.lit("changed"))
        .otherwise(op_type)
    )


def snapshot_rows(states: DataFrame, runs: DataFrame) -> DataFrame:
    """Row states as snapshot rows (op_type by `snapshot_op_type`)."""
    return states.join(latest_runs(runs), "sync_id", "left").select(
        F.col("latest.sync_run_id").alias("sync_run_id"),
        snapshot_op_type(
            F.col("latest.op_type"),
            F.col("latest.status"),
            F.col("latest.sync_run_id") == F.col("latest_sync_run_id"),
        ).alias("op_type"),
        "row_id",
        F.col("latest.status").alias("status"),
        F.col("latest.failed_reason").alias("failed_reason"),
        F.col("latest.fields").alias("fields"),
        F.col("latest.split_group").alias("split_group"),
        F.col("latest.attempted_at").alias("last_attempted_at"),
        "last_succeeded_at",
        "first_added_at",
        F.col("latest.op_type").alias("latest_op_type"),
        F.col("latest.log_id").alias("latest_log_id"),
        ((F.col("latest.op_type") == "removed") & (F.col("latest.status") == "succeeded")).alias(
            "is_removed"
        ),
        "sync_id",
    )


def build_snapshot(changelog: DataFrame, runs: DataFrame) -> DataFrame:
    """Snapshot rows of the syncs in `changelog` (their whole history); `runs`: their runs."""
    return snapshot_rows(row_states(changelog), runs)


def appended_syncs(plan: DataFrame, previous: DataFrame, committed: DataFrame) -> DataFrame:
    """Syncs whose build only adds new runs later than every attempt the previous state holds.

    For those, the new state is the previous state updated by the new runs' rows alone. The
    previous state must come from committed runs only (an earlier build may have failed after
    writing it): a row whose latest run is not committed sends the sync the full way.
    """
    plans = plan.groupBy("sync_id").agg(
        F.bool_and((F.col("action") == "load") & ~F.col("is_superseded")).alias("only_new"),
        F.min(F.struct("cutoff_started_at", "cutoff_sync_run_id")).alias("cutoff"),
    )
    state_runs = (
        previous.select("sync_id", "sync_run_id")
        .distinct()
        .join(committed.select("sync_id", "sync_run_id", "sync_run_started_at"), RUN, "left")
    )
    newest = state_runs.groupBy("sync_id").agg(
        F.max(F.struct("sync_run_started_at", "sync_run_id")).alias("newest"),
        F.bool_and(F.col("sync_run_started_at").isNotNull()).alias("all_committed"),
    )
    return (
        plans.join(newest, "sync_id", "left")
        .filter(
            F.col("only_new")
            & (
                F.col("newest").isNull()
                | (F.col("all_committed") & (F.col("newest") < F.col("cutoff")))
            )
        )
        .select("sync_id")
    )


def updated_states(previous: DataFrame, new_changelog: DataFrame) -> DataFrame:
    """`previous` snapshot rows updated by changelog rows that are all later than them."""
    old = previous.select(
        "sync_id",
        "row_id",
        F.struct(
            "sync_run_id",
            F.col("latest_op_type").alias("op_type"),
            "status",
            "failed_reason",
            "fields",
            "split_group",
            F.col("latest_log_id").alias("log_id"),
            F.col("last_attempted_at").alias("attempted_at"),
        ).alias("old_latest"),
        F.col("last_succeeded_at").alias("old_last_succeeded_at"),
        F.col("first_added_at").alias("old_first_added_at"),
    )
    return old.join(row_states(new_changelog), ["sync_id", "row_id"], "full").select(
        "sync_id",
        "row_id",
        F.coalesce(F.col("latest"), F.col("old_latest")).alias("latest"),
        F.greatest("last_succeeded_at", "old_last_succeeded_at").alias("last_succeeded_at"),
        F.least("first_added_at", "old_first_added_at").alias("first_added_at"),
    )


def update_snapshot(
    previous: DataFrame,
    changelog: DataFrame,
    plan: DataFrame,
    committed: DataFrame,
    runs: DataFrame,
    actions: dict[str | None, list[tuple[int, int]]] | None = None,
) -> DataFrame:
    """The touched syncs' new snapshot rows: appended syncs from their previous state and the new
    runs' rows, the others (late, changed or cleared runs) from their whole changelog.
    `actions`: the plan's `runs_by_action`, when the caller collected it already."""
    # Decided on the driver, so that each branch reads its syncs' partitions alone and a build
    # of runs arriving in order does not read the changelog's history at all.
    appended = [row["sync_id"] for row in appended_syncs(plan, previous, committed).collect()]
    actions = runs_by_action(plan) if actions is None else actions
    others = sorted(set(sync_ids_of(actions)) - set(appended))
    new_rows = changelog.filter(F.col("sync_id").isin(appended)).filter(
        in_runs(actions.get("load", []))
    )
    quick = updated_states(previous.filter(F.col("sync_id").isin(appended)), new_rows)
    full = row_states(changelog.filter(F.col("sync_id").isin(others)))
    return snapshot_rows(quick.unionByName(full), runs)


def snapshot_state(
    changelog: DataFrame,
    manifest: DataFrame,
    plan: DataFrame,
    committed: DataFrame,
    previous: DataFrame | None,
) -> DataFrame:
    """`int_sync_logs__snapshot` rows a build writes; `previous`: the table, when incremental.
    The changelog's rows of the runs the plan clears (uncommitted ones stay in the table until
    the build has committed) and the runs the tables will not hold are left out."""
    if previous is not None:
        actions = runs_by_action(plan)  # one collect of the plan for the whole model
        touched = sync_ids_of(actions)
        if not touched:  # nothing new: the build writes nothing
            return previous.limit(0).select(*SNAPSHOT_COLUMNS)
    runs = kept_runs(manifest.filter(F.col("is_valid")), plan, committed)
    changelog = without_cleared(changelog, plan)
    if previous is None:
        return build_snapshot(changelog, runs).select(*SNAPSHOT_COLUMNS)
    previous = previous.filter(F.col("sync_id").isin(touched))
    changelog = changelog.filter(F.col("sync_id").isin(touched))
    runs = runs.filter(F.col("sync_id").isin(touched))
    return update_snapshot(previous, changelog, plan, committed, runs, actions).select(
        *SNAPSHOT_COLUMNS
    )
