"""sync_snapshot: the latest state of every row per sync (see the yml for the rules).

The rows of `int_sync_logs__snapshot` that are still in the model (their latest attempt is not a
succeeded removal), with `failure_reason` repeating `failed_reason` under the name Hightouch's
example queries use. Incremental (insert_overwrite by sync_id): a build writes the syncs it
touches; the post-hook `sync_logs.clear_emptied_syncs` drops the partition of a touched sync
whose rows were all removed, which an overwrite with no rows cannot empty.
"""

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

SNAPSHOT_COLUMNS = [
    "sync_run_id",
    "op_type",
    "row_id",
    "status",
    "failed_reason",
    "failure_reason",
    "fields",
    "split_group",
    "last_attempted_at",
    "last_succeeded_at",
    "first_added_at",
    "latest_op_type",
    "sync_id",
]


def current_rows(state: DataFrame) -> DataFrame:
    return (
        state.filter(~F.col("is_removed"))
        .withColumn("failure_reason", F.col("failed_reason"))
        .select(*SNAPSHOT_COLUMNS)
    )


def model(dbt, session):
    state = dbt.ref("int_sync_logs__snapshot")
    if dbt.is_incremental:
        plan = dbt.ref("int_sync_logs__runs_to_rewrite")
        touched = [row["sync_id"] for row in plan.select("sync_id").distinct().collect()]
        state = state.filter(F.col("sync_id").isin(touched))
    return current_rows(state)
