"""Run counters: one row per loaded run of `sync_runs` (zero-record runs too), metadata and
counters.

On an incremental build, the syncs the build touches are rewritten: loaded runs get new rows,
recomputed runs (a late run changed their op_types) get their changelog counters again, cleared
runs leave, and every other run keeps its row as it was. `sync_runs` is the last canonical
table a build writes; a run's presence there with its current `manifest_version` commits its
load (see `plan`).
"""

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from sync_logs.canonical.plan import kept_runs, runs_by_action, sync_ids_of

RUN = ["sync_id", "sync_run_id"]
OPS = {"add": "added", "change": "changed", "remove": "removed"}
KNOWN_STATUSES = ["succeeded", "rejected", "null", "duplicate"]


def run_counters(changelog: DataFrame) -> DataFrame:
    """Per run of `changelog`: planned (not invalid), attempted (succeeded or failed), succeeded
    and failed rows per op_type, invalid rows, and the load's own counters. The first ones are
    the macro `run_counters` of mode `census` too (tests/data/run_counters.csv)."""
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
        F.count(F.when(F.col("timestamp_problem").isNotNull(), 1)).alias("num_timestamp_errors"),
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
        counter("num_timestamp_errors"),
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


def update_runs(
    previous: DataFrame,
    plan: DataFrame,
    runs: DataFrame,
    changelog: DataFrame,
    record_files: DataFrame,
) -> DataFrame:
    """The touched syncs' rows: `previous` with the plan's loads, recomputes and clears applied."""

    def planned(action: str) -> DataFrame:
        return plan.filter(F.col("action") == action).select(*RUN)

    loads = planned("load")
    loaded = build_runs(
        runs.join(loads, RUN, "left_semi"),
        changelog.join(loads, RUN, "left_semi"),
        record_files.join(loads, RUN, "left_semi"),
    )
    counters = run_counters(changelog.join(planned("recompute"), RUN, "left_semi"))
    counter_names = [name for name in counters.columns if name not in RUN]
    recomputed = (
        previous.join(planned("recompute"), RUN, "left_semi")
        .drop(*counter_names)
        .join(counters, RUN, "left")
        .select(
            *[
                F.coalesce(F.col(name), F.lit(0)).cast("bigint").alias(name)
                if name in counter_names
                else F.col(name)
                for name in loaded.columns
            ]
        )
    )
    kept = previous.join(plan.select(*RUN), RUN, "left_anti").select(*loaded.columns)
    return kept.unionByName(loaded).unionByName(recomputed)


def sync_runs(
    manifest: DataFrame,
    changelog: DataFrame,
    record_files: DataFrame,
    plan: DataFrame,
    previous: DataFrame | None,
    committed: DataFrame | None = None,
) -> DataFrame:
    """`sync_runs` rows a build writes; `previous`: the table, when incremental. On a first
    build, the valid runs the plan loads or keeps (`committed`: the committed runs, when any)."""
    runs = manifest.filter(F.col("is_valid"))
    if previous is None:
        if committed is not None:
            runs = kept_runs(runs, plan, committed)
        return build_runs(runs, changelog, record_files)
    touched = sync_ids_of(runs_by_action(plan))
    if not touched:  # nothing new: the build writes nothing
        return previous.limit(0)
    previous = previous.filter(F.col("sync_id").isin(touched))
    return update_runs(previous, plan, runs, changelog, record_files)
