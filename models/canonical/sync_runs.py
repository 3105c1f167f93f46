"""sync_runs: one row per loaded run (zero-record runs too), metadata and counters.

Incremental (insert_overwrite by sync_id): a build recomputes every run of the syncs it
touches (a late run can change the op_type counters of later runs). `sync_runs` is the last
canonical table a build writes; a run's presence here with its current `manifest_version`
commits its load (see `int_sync_logs__runs_to_load`).
"""

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

RUN = ["sync_id", "sync_run_id"]
OPS = {"add": "added", "change": "changed", "remove": "removed"}
KNOWN_STATUSES = ["succeeded", "rejected", "null", "duplicate"]


def run_counters(changelog: DataFrame) -> DataFrame:
    valid = F.col("status") != "invalid"
    attempted = F.col("status").isin("succeeded", "failed")
    counters = []
    for short, op in OPS.items():
        is_op = F.col("op_type") == op
        counters += [
            F.count(F.when(is_op & valid, 1)).alias(f"num_planned_{short}"),
            F.count(F.when(is_op & attempted, 1)).alias(f"num_attempted_{short}"),
            F.count(F.when(is_op & (F.col("status") == "succeeded"), 1)).alias(
                f"num_succeeded_{short}"
            ),
            F.count(F.when(is_op & (F.col("status") == "failed"), 1)).alias(f"num_failed_{short}"),
        ]
    raw = F.lower(F.trim(F.col("raw_status")))
    return changelog.groupBy(*RUN).agg(
        *counters,
        F.count(F.when(F.col("status") == "invalid", 1)).alias("num_invalid"),
        F.count(F.lit(1)).alias("num_changelog_rows"),
        F.sum("redelivery_count").alias("num_folded"),
        F.count(F.when(F.col("payload_problem").isNotNull(), 1)).alias("num_payload_errors"),
        F.count(F.when(F.col("payload_truncated"), 1)).alias("num_payloads_truncated"),
        F.count(F.when(raw.isNotNull() & (raw != "") & ~raw.isin(*KNOWN_STATUSES), 1)).alias(
            "num_unknown_status"
        ),
    )


def file_counters(record_files: DataFrame) -> DataFrame:
    return record_files.groupBy(*RUN).agg(
        F.sum(F.when(F.col("is_loaded"), F.col("num_rows"))).alias("num_records"),
        F.count(F.lit(1)).alias("num_files"),
        F.count(F.when(~F.col("is_loaded"), 1)).alias("num_quarantined_files"),
    )


def build_runs(runs: DataFrame, changelog: DataFrame, record_files: DataFrame) -> DataFrame:
    current_files = record_files.join(
        runs.select(*RUN, "manifest_version"), [*RUN, "manifest_version"], "left_semi"
    )
    joined = runs.join(run_counters(changelog), RUN, "left").join(
        file_counters(current_files), RUN, "left"
    )
    zero = F.lit(0).cast("bigint")

    def counter(name: str):
        return F.coalesce(F.col(name), zero).cast("bigint").alias(name)

    counter_names = [
        f"num_{kind}_{short}"
        for kind in ("planned", "attempted", "succeeded", "failed")
        for short in OPS
    ]
    num_records = F.coalesce(F.col("num_records"), zero)
    rows = F.coalesce(F.col("num_changelog_rows"), zero)
    return joined.select(
        "org_id",
        "workspace_id",
        "primary_key",
        F.col("destination_type").alias("destination"),
        "model_name",
        "model_id",
        F.col("sync_run_status").alias("status"),
        F.col("sync_run_error").alias("error"),
        F.col("sync_run_started_at").alias("started_at"),
        F.col("sync_run_finished_at").alias("finished_at"),
        "behavior",
        "split_group",
        "source_id",
        "source_object_id",
        "destination_id",
        "destination_object_id",
        *[counter(name) for name in counter_names],
        counter("num_invalid"),
        (num_records - rows).cast("bigint").alias("num_redelivered"),
        num_records.cast("bigint").alias("num_records"),
        counter("num_folded"),
        counter("num_changelog_rows"),
        counter("num_payload_errors"),
        counter("num_payloads_truncated"),
        counter("num_unknown_status"),
        counter("num_files"),
        counter("num_quarantined_files"),
        "source_type",
        "destination_object_type",
        "run_folder",
        "fingerprint",
        "manifest_version",
        F.current_timestamp().alias("loaded_at"),
        *RUN,
    )


def model(dbt, session):
    # Built after the other canonical tables of a load: this table commits the load.
    dbt.ref("int_sync_logs__snapshot")
    changelog = dbt.ref("sync_changelog")
    record_files = dbt.ref("int_sync_logs__record_files")
    runs = dbt.ref("int_sync_logs__run_manifest").filter(F.col("is_valid"))
    if dbt.is_incremental:
        loading = dbt.ref("int_sync_logs__runs_to_load")
        touched = [row["sync_id"] for row in loading.select("sync_id").distinct().collect()]
        runs = runs.filter(F.col("sync_id").isin(touched))
        changelog = changelog.filter(F.col("sync_id").isin(touched))
        record_files = record_files.filter(F.col("sync_id").isin(touched))
    return build_runs(runs, changelog, record_files)
