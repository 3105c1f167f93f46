"""The build plan: the committed runs, and the runs a build writes or clears, with the action.

- `load`: a run of `int_sync_logs__runs_to_load` (new, changed folder, or not yet committed).
- `clear`: a committed run whose folder is still in the lake but is no longer valid: its rows
  leave `sync_changelog` and `sync_runs`, as a full rebuild would not load it.
- `recompute`: a committed run of a touched sync at or after the sync's cutoff: its rows stay
  but their `op_type` / `payload_changed` and the run's counters are derived again.

A sync's cutoff is the earliest (started_at, run id) among its loaded runs (new position) and
its changed or cleared committed runs (committed position). Runs before the cutoff are not
touched: with runs arriving in order the plan holds only the new runs, whatever the history.
Committed runs whose folder has left the lake keep their rows (history outlives the lake).

A run's load is committed when `sync_runs`, the last canonical table a build writes, holds it
with its current `manifest_version`.
"""

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from sync_logs.canonical.ordering import run_key

RUN = ["sync_id", "sync_run_id"]
COMMITTED_SCHEMA = (
    "sync_id bigint, sync_run_id bigint, sync_run_started_at timestamp, manifest_version bigint"
)


def sibling_relation(this_name: str, identifier: str) -> str:
    """The relation `identifier` in the same catalog/schema as `this_name`."""
    prefix, _, last = this_name.rpartition(".")
    quote = "`" if last.startswith("`") else ('"' if last.startswith('"') else "")
    name = f"{quote}{identifier}{quote}"
    return f"{prefix}.{name}" if prefix else name


def committed_runs(session: SparkSession, relation: str) -> DataFrame:
    """`int_sync_logs__committed_runs`: key, start and `manifest_version` of each run of
    `relation` (`sync_runs`, read by name: a `ref` would be a cycle); empty on a first build."""
    if not session.catalog.tableExists(relation.replace("`", "")):
        return session.createDataFrame([], COMMITTED_SCHEMA)
    return session.table(relation).select(
        "sync_id",
        "sync_run_id",
        F.col("started_at").alias("sync_run_started_at"),
        "manifest_version",
    )


def superseded_runs(committed: DataFrame, manifest: DataFrame) -> DataFrame:
    """Committed runs whose folder is in the lake with another version, or invalid."""
    current = manifest.filter(F.col("is_valid")).select(*RUN, "manifest_version")
    in_lake = manifest.filter(F.col("sync_run_id").isNotNull()).select(*RUN).distinct()
    return committed.join(current, [*RUN, "manifest_version"], "left_anti").join(
        in_lake, RUN, "left_semi"
    )


def rewrite_plan(loading: DataFrame, committed: DataFrame, manifest: DataFrame) -> DataFrame:
    load = loading.select(*RUN, "sync_run_started_at")
    superseded = superseded_runs(committed, manifest).select(*RUN, "sync_run_started_at")
    cutoffs = load.unionByName(superseded).groupBy("sync_id").agg(F.min(run_key()).alias("cutoff"))
    loaded = load.join(superseded.select(*RUN), RUN, "left_semi").select(*RUN)
    load = load.join(loaded.withColumn("_reload", F.lit(True)), RUN, "left")
    cleared = superseded.join(load.select(*RUN), RUN, "left_anti")
    recomputed = (
        committed.join(cutoffs, "sync_id")
        .filter(run_key() >= F.col("cutoff"))
        .join(superseded.select(*RUN), RUN, "left_anti")
        .join(load.select(*RUN), RUN, "left_anti")
        .select(*RUN, "sync_run_started_at")
    )
    plan = (
        load.select(
            *RUN,
            "sync_run_started_at",
            F.lit("load").alias("action"),
            F.coalesce(F.col("_reload"), F.lit(False)).alias("is_superseded"),
        )
        .unionByName(cleared.withColumns({"action": F.lit("clear"), "is_superseded": F.lit(True)}))
        .unionByName(
            recomputed.withColumns({"action": F.lit("recompute"), "is_superseded": F.lit(False)})
        )
    )
    return plan.join(cutoffs, "sync_id").select(
        *RUN,
        "sync_run_started_at",
        "action",
        "is_superseded",
        F.col("cutoff.sync_run_started_at").alias("cutoff_started_at"),
        F.col("cutoff.sync_run_id").alias("cutoff_sync_run_id"),
    )


def touched_sync_ids(plan: DataFrame) -> list[int]:
    """The syncs whose partitions a build rewrites."""
    return [row["sync_id"] for row in plan.select("sync_id").distinct().collect()]
