"""The build plan (`int_sync_logs__build_plan`), computed once per build: one row per run that is
committed or that the build writes or clears, with its committed version and the action.

- `load`: a valid run of the manifest, its folder in the lake, whose current `manifest_version`
  is not committed (new, changed folder, or left uncommitted by a failed build).
  `int_sync_logs__runs_to_load` is these runs' manifest rows. A valid run whose folder left the
  lake before its load was committed is not loaded (a full build would not see it).
- `clear`: a committed run whose folder is still in the lake but is no longer valid (or whose
  folder left the lake with a version that is not committed): its rows leave `sync_changelog`
  and `sync_runs`, as a full rebuild would not load it. Also a run whose rows `sync_changelog`
  holds though it is not committed and not loaded now (`uncommitted`: a build wrote them and
  failed before its commit, then the folder turned invalid or left): its partition is
  dropped once this build has committed (`sync_logs.clear_uncommitted_runs`), and the
  snapshot, the counters and later op_types ignore its rows meanwhile. An uncommitted run
  that is loaded again is `load` and `is_superseded`, as a reloaded committed run is.
- `recompute`: a committed run of a touched sync at or after the sync's cutoff: its rows stay
  but their `op_type` / `payload_changed` and the run's counters are derived again.
- no action (null): a committed run the build leaves as it is.

A sync's cutoff is the earliest (started_at, run id) among its loaded runs (new position) and
its changed or cleared runs that hold rows (committed position, or the uncommitted rows' one).
Runs before the cutoff are not touched: with runs arriving in order the plan holds only the new
runs, whatever the history.
Committed runs whose folder has left the lake keep their rows (history outlives the lake).

A run's load is committed when `sync_runs`, the last canonical table a build writes, holds it
with its current `manifest_version`.

The plan is a function of the manifest's run rows, the committed runs and the uncommitted runs
alone: each plan row holds their fingerprint (`inputs_fingerprint`), and a build whose inputs
have the stored plan's fingerprint, when that plan holds no action, keeps the stored plan
without computing it again.
"""

import hashlib

from pyspark.sql import DataFrame, SparkSession, Window
from pyspark.sql import functions as F

from sync_logs.canonical.manifest import in_lake
from sync_logs.canonical.ordering import run_key

RUN = ["sync_id", "sync_run_id"]
# The runs a build writes or clears; the plan table adds each committed run's start and version.
PLANNED_COLUMNS = [
    *RUN,
    "sync_run_started_at",
    "action",
    "is_superseded",
    "cutoff_started_at",
    "cutoff_sync_run_id",
]
PLAN_COLUMNS = [
    *PLANNED_COLUMNS,
    "committed_started_at",
    "committed_version",
    "inputs_fingerprint",
]
COMMITTED_SCHEMA = (
    "sync_id bigint, sync_run_id bigint, sync_run_started_at timestamp, manifest_version bigint"
)
UNCOMMITTED_SCHEMA = "sync_id bigint, sync_run_id bigint, sync_run_started_at timestamp"
# A partition as `show partitions` names it on a parquet table: sync_id=1/sync_run_id=7.
PARTITION_VALUE = r"(^|/){name}=([0-9]+)(/|$)"


def sibling_relation(this_name: str, identifier: str) -> str:
    """The relation `identifier` in the same catalog/schema as `this_name`."""
    prefix, _, last = this_name.rpartition(".")
    quote = "`" if last.startswith("`") else ('"' if last.startswith('"') else "")
    name = f"{quote}{identifier}{quote}"
    return f"{prefix}.{name}" if prefix else name


def read_stored(session: SparkSession, relation: str) -> DataFrame | None:
    """The table `relation` as the build finds it, or None when there is none yet."""
    if not session.catalog.tableExists(relation.replace("`", "").replace('"', "")):
        return None
    return session.table(relation)


def read_committed(session: SparkSession, relation: str) -> DataFrame:
    """Key, start and `manifest_version` of each run of `relation` (`sync_runs`, read by name: a
    `ref` would be a cycle); empty on a first build."""
    stored = read_stored(session, relation)
    if stored is None:
        return session.createDataFrame([], COMMITTED_SCHEMA)
    return stored.select(
        "sync_id",
        "sync_run_id",
        F.col("started_at").alias("sync_run_started_at"),
        "manifest_version",
    )


def stored_runs(session: SparkSession, relation: str) -> DataFrame:
    """(sync_id, sync_run_id) of each partition of `relation` (`sync_changelog`, partitioned by
    both): one metastore query (`show partitions`); empty when there is no table yet."""
    if read_stored(session, relation) is None:
        return session.createDataFrame([], "sync_id bigint, sync_run_id bigint")
    partitions = session.sql(f"show partitions {relation}")
    if "partition" not in partitions.columns:  # delta tables: one column per partition column
        return partitions.select(*[F.col(name).cast("bigint").alias(name) for name in RUN])
    return partitions.select(
        *[
            F.regexp_extract("partition", PARTITION_VALUE.format(name=name), 2)
            .cast("bigint")
            .alias(name)
            for name in RUN
        ]
    )


def read_uncommitted(session: SparkSession, relation: str, committed: DataFrame) -> DataFrame:
    """Runs whose rows `relation` (`sync_changelog`, read by name) holds though `committed` does
    not hold them, with their start: left by a build that failed before its commit. Usually
    none, found without reading a row (the keys compared on the driver); their start is read
    from their partitions alone."""
    held = {tuple(row) for row in committed.select(*RUN).collect()}
    keys = [row for row in stored_runs(session, relation).collect() if tuple(row) not in held]
    if not keys:
        return session.createDataFrame([], UNCOMMITTED_SCHEMA)
    left = F.lit(False)
    for key in keys:
        run = (F.col("sync_id") == key["sync_id"]) & (F.col("sync_run_id") == key["sync_run_id"])
        left = left | run
    starts = (
        session.table(relation)
        .filter(left)
        .groupBy(*RUN)
        .agg(F.min("sync_run_started_at").alias("sync_run_started_at"))
        .collect()
    )
    return session.createDataFrame([tuple(row) for row in starts], UNCOMMITTED_SCHEMA)


def no_uncommitted(manifest: DataFrame) -> DataFrame:
    return manifest.sparkSession.createDataFrame([], UNCOMMITTED_SCHEMA)


def inputs_fingerprint(
    manifest: DataFrame, committed: DataFrame, uncommitted: DataFrame | None = None
) -> str:
    """Count and hash of what the plan reads: the manifest's run rows (and whether their folder
    is in the lake), the committed runs and the uncommitted ones, each a few hundred rows
    collected and hashed on the driver."""
    if uncommitted is None:
        uncommitted = no_uncommitted(manifest)
    started = F.unix_micros("sync_run_started_at")
    inputs = {
        "manifest": manifest.filter(F.col("is_valid").isNotNull()).select(
            *RUN, started, "manifest_version", "is_valid", in_lake()
        ),
        "committed": committed.select(*RUN, started, "manifest_version"),
        "uncommitted": uncommitted.select(*RUN, started),
    }
    return ";".join(f"{name}:{rows_digest(rows)}" for name, rows in inputs.items())


def rows_digest(rows: DataFrame) -> str:
    """`<count>:<sha256>` of the collected rows, whatever their order."""
    lines = sorted(repr(tuple(row)) for row in rows.collect())
    digest = hashlib.sha256("\n".join(lines).encode()).hexdigest()
    return f"{len(lines)}:{digest}"


def current_plan(
    manifest: DataFrame,
    committed: DataFrame,
    previous: DataFrame | None,
    uncommitted: DataFrame | None = None,
) -> DataFrame:
    """`int_sync_logs__build_plan`: `previous` (the table) as it stands when it holds no action
    and was computed from the same inputs (an idle build after an idle build), else the plan
    computed again."""
    fingerprint = inputs_fingerprint(manifest, committed, uncommitted)
    if previous is not None and "inputs_fingerprint" in previous.columns:
        stored = previous.agg(
            F.max(F.col("action").isNotNull()).alias("has_actions"),
            F.max("inputs_fingerprint").alias("inputs_fingerprint"),
        ).first()
        if stored["has_actions"] is False and stored["inputs_fingerprint"] == fingerprint:
            return previous
    return build_plan(manifest, committed, fingerprint, uncommitted)


def build_plan(
    manifest: DataFrame,
    committed: DataFrame,
    fingerprint: str | None = None,
    uncommitted: DataFrame | None = None,
) -> DataFrame:
    """Each run of the lake, of `committed` or of `uncommitted` once, classified in one pass
    (one join, one window over the sync) into the actions above."""
    if uncommitted is None:
        uncommitted = no_uncommitted(manifest)
    valid = F.col("is_valid")
    lake = (
        manifest.filter(F.col("is_valid").isNotNull())  # run folders
        .withColumn("present", in_lake())
        .groupBy(*RUN)
        .agg(
            F.max(F.when(valid, F.col("manifest_version"))).alias("valid_version"),
            F.max(F.when(valid, F.col("sync_run_started_at"))).alias("valid_started"),
            F.max(F.when(valid, F.col("present"))).alias("valid_present"),
        )
        .withColumn("in_manifest", F.lit(True))
    )
    kept = committed.select(
        *RUN,
        F.col("sync_run_started_at").alias("committed_started_at"),
        F.col("manifest_version").alias("committed_version"),
    )
    left_over = uncommitted.select(
        *RUN, F.col("sync_run_started_at").alias("uncommitted_started_at")
    )
    is_committed = F.col("committed_version").isNotNull()
    current = F.coalesce(F.col("valid_version") == F.col("committed_version"), F.lit(False))
    is_load = F.col("valid_version").isNotNull() & F.col("valid_present") & ~current
    is_superseded = (is_committed & F.col("in_manifest").isNotNull() & ~current) | F.col(
        "uncommitted_started_at"
    ).isNotNull()
    held_started = F.coalesce(F.col("committed_started_at"), F.col("uncommitted_started_at"))
    held_key = run_key("held_started")
    runs = (
        lake.join(kept, RUN, "full")
        .join(left_over, RUN, "full")
        .withColumns(
            {"is_load": is_load, "is_superseded": is_superseded, "held_started": held_started}
        )
        .withColumn(
            "cutoff",
            F.min(
                F.least(
                    F.when(F.col("is_load"), run_key("valid_started")),
                    F.when(F.col("is_superseded"), held_key),
                )
            ).over(Window.partitionBy("sync_id")),
        )
    )
    action = (
        F.when(F.col("is_load"), "load")
        .when(F.col("is_superseded"), "clear")
        .when(is_committed & (held_key >= F.col("cutoff")), "recompute")
    )
    planned = F.col("action").isNotNull()
    return (
        runs.withColumn("action", action)
        .select(
            *RUN,
            F.when(F.col("is_load"), F.col("valid_started"))
            .when(planned, F.col("held_started"))
            .alias("sync_run_started_at"),
            "action",
            F.when(planned, F.col("is_superseded")).alias("is_superseded"),
            F.when(planned, F.col("cutoff.sync_run_started_at")).alias("cutoff_started_at"),
            F.when(planned, F.col("cutoff.sync_run_id")).alias("cutoff_sync_run_id"),
            "committed_started_at",
            "committed_version",
            F.lit(fingerprint).cast("string").alias("inputs_fingerprint"),
        )
    )


def planned_runs(build_plan: DataFrame) -> DataFrame:
    """The runs the build writes or clears, with their action and their sync's cutoff."""
    return build_plan.filter(F.col("action").isNotNull()).select(*PLANNED_COLUMNS)


def committed_runs(build_plan: DataFrame) -> DataFrame:
    """The committed runs as `sync_runs` held them when the build started."""
    return build_plan.filter(F.col("committed_version").isNotNull()).select(
        *RUN,
        F.col("committed_started_at").alias("sync_run_started_at"),
        F.col("committed_version").alias("manifest_version"),
    )


def kept_runs(runs: DataFrame, plan: DataFrame, committed: DataFrame) -> DataFrame:
    """The rows of `runs` (valid manifest runs) that the tables hold once this build has
    committed: the loaded runs, and the committed runs the build does not clear. Not a valid
    run whose folder left the lake before its load was committed, nor a cleared one."""
    loaded = plan.filter(F.col("action") == "load").select(*RUN)
    cleared = plan.filter(F.col("action") == "clear").select(*RUN)
    held = committed.select(*RUN).join(cleared, RUN, "left_anti").unionByName(loaded)
    return runs.join(held, RUN, "left_semi")


def without_cleared(changelog: DataFrame, plan: DataFrame) -> DataFrame:
    """`changelog` without the rows of the runs the plan clears (those of uncommitted runs stay
    in the table until the build has committed)."""
    cleared = plan.filter(F.col("action") == "clear").select(*RUN)
    return changelog.join(cleared, RUN, "left_anti")


def touched_sync_ids(plan: DataFrame) -> list[int]:
    """The syncs whose partitions a build rewrites."""
    return [row["sync_id"] for row in plan.select("sync_id").distinct().collect()]
