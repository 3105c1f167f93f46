"""sync_log: the per-record log in Census's `sync_log` shape, with the run's object ids.

Incremental (insert_overwrite by sync_id, sync_run_id): a build writes exactly the runs it
loads, from their just-written changelog rows (re-deliveries are folded there, so `log_id`
is unique here too).
"""

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

RUN = ["sync_id", "sync_run_id"]

SYNC_LOG_COLUMNS = [
    "log_id",
    "record_identifier",
    "record_payload",
    "batch_started_at",
    "batch_completed_at",
    "operation",
    "status",
    "status_message",
    "logged_at",
    "destination_id",
    "destination_object_id",
    "source_id",
    "source_object_id",
    "org_id",
    "batch_file",
    "sync_id",
    "sync_run_id",
]


def build_sync_log(changelog: DataFrame, runs: DataFrame) -> DataFrame:
    ids = runs.select(
        *RUN, "destination_id", "destination_object_id", "source_id", "source_object_id"
    )
    return changelog.join(ids, RUN).select(
        "log_id",
        F.col("row_id").alias("record_identifier"),
        F.col("fields").alias("record_payload"),
        "batch_started_at",
        F.col("batch_ended_at").alias("batch_completed_at"),
        "operation",
        F.col("raw_status").alias("status"),
        "status_message",
        "logged_at",
        "destination_id",
        "destination_object_id",
        "source_id",
        "source_object_id",
        "org_id",
        "batch_file",
        *RUN,
    )


def model(dbt, session):
    changelog = dbt.ref("sync_changelog")
    runs = dbt.ref("int_sync_logs__runs_to_load")
    if dbt.is_incremental:
        touched = [row["sync_id"] for row in runs.select("sync_id").distinct().collect()]
        changelog = changelog.filter(F.col("sync_id").isin(touched))
    else:
        runs = dbt.ref("int_sync_logs__run_manifest").filter(F.col("is_valid"))
    return build_sync_log(changelog, runs).select(*SYNC_LOG_COLUMNS)
