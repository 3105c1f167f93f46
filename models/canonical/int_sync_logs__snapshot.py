"""Latest state of every row per sync, including rows whose latest attempt removed them.

Incremental (insert_overwrite by sync_id): a build recomputes the syncs it touches (every sync
with a run loaded in this build) from their changelog, and writes nothing else. Rows whose
latest attempt is a succeeded `removed` are kept here with `is_removed = true` (so a sync whose
rows were all removed still replaces its partition); the `sync_snapshot` view hides them.
"""

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F

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


def attempt_order() -> Column:
    """Attempts of a row ordered by run (started_at, run id), then position within the run."""
    return F.struct(
        F.col("sync_run_started_at"),
        F.col("sync_run_id"),
        F.col("batch_started_at").isNull(),
        F.col("batch_started_at"),
        F.col("batch_type"),
        F.col("batch_number"),
        F.col("batch_row_index"),
    )


def latest_runs(runs: DataFrame) -> DataFrame:
    """Per sync: the run id of its most recent loaded run."""
    return runs.groupBy("sync_id").agg(
        F.max(F.struct("sync_run_started_at", "sync_run_id"))["sync_run_id"].alias(
            "latest_sync_run_id"
        )
    )


def build_snapshot(changelog: DataFrame, runs: DataFrame) -> DataFrame:
    """Snapshot rows of the syncs in `changelog` (their whole history); `runs`: their runs."""
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
    rows = (
        changelog.filter(F.col("row_id").isNotNull())
        .groupBy("sync_id", "row_id")
        .agg(
            F.max_by(latest, attempt_order()).alias("latest"),
            F.max(F.when(F.col("status") == "succeeded", success_time)).alias("last_succeeded_at"),
            F.min(
                F.when(
                    (F.col("status") == "succeeded") & (F.col("op_type") == "added"), success_time
                )
            ).alias("first_added_at"),
        )
    )
    return rows.join(latest_runs(runs), "sync_id", "left").select(
        F.col("latest.sync_run_id").alias("sync_run_id"),
        F.when(F.col("latest.sync_run_id") == F.col("latest_sync_run_id"), F.col("latest.op_type"))
        .otherwise(F.lit("unchanged"))
        .alias("op_type"),
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


def model(dbt, session):
    changelog = dbt.ref("sync_changelog")
    manifest = dbt.ref("int_sync_logs__run_manifest").filter(F.col("is_valid"))
    if dbt.is_incremental:
        loading = dbt.ref("int_sync_logs__runs_to_load")
        touched = [row["sync_id"] for row in loading.select("sync_id").distinct().collect()]
        changelog = changelog.filter(F.col("sync_id").isin(touched))
        manifest = manifest.filter(F.col("sync_id").isin(touched))
    return build_snapshot(changelog, manifest).select(*SNAPSHOT_COLUMNS)
