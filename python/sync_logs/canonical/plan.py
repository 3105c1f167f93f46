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
alone, one row per run each: they are collected (by one Spark job, with the stored plan's
state) and the plan is computed on the driver, which costs a build far less than Spark's
planning of joins and windows over a few hundred rows. Each plan row holds their fingerprint
(`inputs_fingerprint`), and a build whose inputs have the stored plan's fingerprint, when that
plan holds no action, keeps the stored plan without computing it again.
"""

import functools
import hashlib
import json
from dataclasses import dataclass

from pyspark.sql import Column, DataFrame, SparkSession
from pyspark.sql import functions as F

from sync_logs.canonical.local_rows import local_frame
from sync_logs.canonical.manifest import in_lake

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


def read_inputs(
    session: SparkSession,
    manifest: DataFrame,
    sync_runs: str,
    changelog: str,
    previous: DataFrame | None,
) -> tuple["PlanInputs", list[tuple] | None]:
    """The plan's inputs, and the state of the stored plan `previous` (`stored_state`), when
    there is one. The manifest, the committed runs of `sync_runs` and that state are read by
    one Spark job; `sync_runs` and `changelog` are read by name (a `ref` would be a cycle)."""
    frames = {"manifest": manifest_inputs(manifest)}
    committed_table = read_stored(session, sync_runs)
    if committed_table is not None:  # none on a first build
        frames["committed"] = committed_table.select(
            *RUN, F.unix_micros("started_at"), "manifest_version"
        )
    state = stored_state(previous)
    if state is not None:
        frames["state"] = state
    rows = collected_each(frames)
    committed = rows.get("committed", [])
    uncommitted = uncommitted_rows(session, changelog, committed)
    return PlanInputs(rows["manifest"], committed, uncommitted), rows.get("state")


def stored_runs(session: SparkSession, relation: str) -> list[tuple]:
    """(sync_id, sync_run_id) of each partition of `relation` (`sync_changelog`, partitioned by
    both): one metastore query (`show partitions`); none when there is no table yet."""
    if read_stored(session, relation) is None:
        return []
    partitions = session.sql(f"show partitions {relation}")
    if "partition" not in partitions.columns:  # delta tables: one column per partition column
        return collected(partitions.select(*[F.col(name).cast("bigint") for name in RUN]))
    return collected(
        partitions.select(
            *[
                F.regexp_extract("partition", PARTITION_VALUE.format(name=name), 2).cast("bigint")
                for name in RUN
            ]
        )
    )


def uncommitted_rows(session: SparkSession, relation: str, committed: list[tuple]) -> list[tuple]:
    """Runs whose rows `relation` (`sync_changelog`, read by name) holds though `committed`
    (`PlanInputs.committed`) does not hold them, with their start (microseconds): left by a build
    that failed before its commit. Usually none, found without reading a row (the keys
    compared on the driver); their start is read from their partitions alone."""
    held = {row[:2] for row in committed}
    keys = [key for key in stored_runs(session, relation) if key not in held]
    if not keys:
        return []
    left = F.lit(False)
    for sync_id, sync_run_id in keys:
        left = left | ((F.col("sync_id") == sync_id) & (F.col("sync_run_id") == sync_run_id))
    return collected(
        session.table(relation)
        .filter(left)
        .groupBy(*RUN)
        .agg(F.unix_micros(F.min("sync_run_started_at")))
    )


def collected(frame: DataFrame) -> list[tuple]:
    return [tuple(row) for row in frame.collect()]


def collected_each(frames: dict[str, DataFrame]) -> dict[str, list[tuple]]:
    """The rows of each frame, as `collected` gives them, read by one Spark job instead of one
    job each: each row travels as JSON (integers, booleans and strings come back as they were),
    tagged with its frame's name."""

    def tagged(name: str, frame: DataFrame) -> DataFrame:
        fields = frame.toDF(*[f"c{index}" for index in range(len(frame.columns))])  # any names
        return fields.select(F.lit(name).alias("frame"), F.to_json(F.struct("*")).alias("row"))

    width = {name: len(frame.columns) for name, frame in frames.items()}
    rows: dict[str, list[tuple]] = {name: [] for name in frames}
    union = functools.reduce(DataFrame.unionAll, [tagged(*item) for item in frames.items()])
    for name, text in union.collect():
        values = json.loads(text)  # a null field is left out
        rows[name].append(tuple(values.get(f"c{index}") for index in range(width[name])))
    return rows


@dataclass(frozen=True)
class PlanInputs:
    """What the plan reads, collected on the driver (a few hundred rows each; times as
    microseconds): the manifest's run rows (`sync_id, sync_run_id, started, manifest_version,
    is_valid, in_lake`), the committed runs (`sync_id, sync_run_id, started,
    manifest_version`) and the uncommitted ones (`sync_id, sync_run_id, started`)."""

    manifest: list[tuple]
    committed: list[tuple]
    uncommitted: list[tuple]

    def fingerprint(self) -> str:
        """Count and hash of each input, whatever the order of its rows."""
        return ";".join(
            f"{name}:{rows_digest(rows)}"
            for name, rows in (
                ("manifest", self.manifest),
                ("committed", self.committed),
                ("uncommitted", self.uncommitted),
            )
        )


def rows_digest(rows: list[tuple]) -> str:
    """`<count>:<sha256>` of `rows`, whatever their order."""
    lines = sorted(repr(row) for row in rows)
    digest = hashlib.sha256("\n".join(lines).encode()).hexdigest()
    return f"{len(lines)}:{digest}"


def manifest_inputs(manifest: DataFrame) -> DataFrame:
    """The manifest's run folders as the plan reads them (`PlanInputs.manifest`)."""
    return manifest.filter(F.col("is_valid").isNotNull()).select(
        *RUN, F.unix_micros("sync_run_started_at"), "manifest_version", "is_valid", in_lake()
    )


def stored_state(previous: DataFrame | None) -> DataFrame | None:
    """One row of the stored plan `previous`: whether it holds an action, and the fingerprint of
    the inputs it was computed from; None when there is no stored plan with fingerprints."""
    if previous is None or "inputs_fingerprint" not in previous.columns:
        return None
    return previous.agg(
        F.max(F.col("action").isNotNull()).alias("has_actions"),
        F.max("inputs_fingerprint").alias("inputs_fingerprint"),
    )


def collect_inputs(
    manifest: DataFrame, committed: DataFrame, uncommitted: DataFrame | None = None
) -> PlanInputs:
    """The plan's inputs from frames: the manifest, `COMMITTED_SCHEMA`, `UNCOMMITTED_SCHEMA`;
    read as `read_inputs` reads them (`collected_each`)."""
    started = F.unix_micros("sync_run_started_at")
    frames = {
        "manifest": manifest_inputs(manifest),
        "committed": committed.select(*RUN, started, "manifest_version"),
    }
    if uncommitted is not None:
        frames["uncommitted"] = uncommitted.select(*RUN, started)
    rows = collected_each(frames)
    return PlanInputs(rows["manifest"], rows["committed"], rows.get("uncommitted", []))


def inputs_fingerprint(
    manifest: DataFrame, committed: DataFrame, uncommitted: DataFrame | None = None
) -> str:
    """`PlanInputs.fingerprint` of the plan's inputs."""
    return collect_inputs(manifest, committed, uncommitted).fingerprint()


def current_plan(
    manifest: DataFrame,
    committed: DataFrame,
    previous: DataFrame | None,
    uncommitted: DataFrame | None = None,
) -> DataFrame:
    """`current_plan_from` the inputs of these frames."""
    stored = stored_state(previous)
    state = collected(stored) if stored is not None else None
    return current_plan_from(
        collect_inputs(manifest, committed, uncommitted), manifest.sparkSession, previous, state
    )


def current_plan_from(
    inputs: PlanInputs,
    session: SparkSession,
    previous: DataFrame | None,
    state: list[tuple] | None,
) -> DataFrame:
    """`int_sync_logs__build_plan`: `previous` (the table) as it stands when it holds no action
    and was computed from the same inputs (an idle build after an idle build), else the plan
    computed again. `state`: the rows of `stored_state(previous)`, None without one."""
    fingerprint = inputs.fingerprint()
    if state and state[0] == (False, fingerprint):
        return previous
    return plan_frame(session, plan_rows(inputs, fingerprint))


def build_plan(
    manifest: DataFrame,
    committed: DataFrame,
    fingerprint: str | None = None,
    uncommitted: DataFrame | None = None,
) -> DataFrame:
    """Each run of the lake, of `committed` or of `uncommitted` once, classified into the
    actions above (`plan_rows`)."""
    inputs = collect_inputs(manifest, committed, uncommitted)
    return plan_frame(manifest.sparkSession, plan_rows(inputs, fingerprint))


def run_order(started: int | None, sync_run_id: int) -> tuple:
    """A run's place among its sync's runs (`ordering.run_key`): by start, unknown first, then
    by run id."""
    return (started is not None, started or 0, sync_run_id)


def plan_rows(inputs: PlanInputs, fingerprint: str | None) -> list[tuple]:
    """The plan's rows (PLAN_COLUMNS, times as microseconds), each run once."""
    lake: dict[tuple, list] = {}  # the valid rows' newest version, start, presence
    for sync_id, run_id, started, version, is_valid, present in inputs.manifest:
        entry = lake.setdefault((sync_id, run_id), [None, None, None])
        if is_valid:
            for index, value in enumerate((version, started, present)):
                if value is not None and (entry[index] is None or value > entry[index]):
                    entry[index] = value
    committed = {(row[0], row[1]): row[2:] for row in inputs.committed}
    uncommitted = {(row[0], row[1]): row[2] for row in inputs.uncommitted}
    runs = []
    cutoffs: dict[int, tuple] = {}
    for key in {*lake, *committed, *uncommitted}:
        valid_version, valid_started, valid_present = lake.get(key, (None, None, None))
        committed_started, committed_version = committed.get(key, (None, None))
        uncommitted_started = uncommitted.get(key)
        is_committed = committed_version is not None
        current = valid_version is not None and valid_version == committed_version
        is_load = valid_version is not None and bool(valid_present) and not current
        is_superseded = (is_committed and key in lake and not current) or (
            uncommitted_started is not None
        )
        held_started = committed_started if committed_started is not None else uncommitted_started
        for begins, started in ((is_load, valid_started), (is_superseded, held_started)):
            order = run_order(started, key[1])
            if begins and (key[0] not in cutoffs or order < cutoffs[key[0]]):
                cutoffs[key[0]] = order
        runs.append((key, is_load, is_superseded, valid_started, held_started, is_committed))
    rows = []
    for key, is_load, is_superseded, valid_started, held_started, is_committed in runs:
        cutoff = cutoffs.get(key[0])
        if is_load:
            action = "load"
        elif is_superseded:
            action = "clear"
        elif is_committed and cutoff is not None and run_order(held_started, key[1]) >= cutoff:
            action = "recompute"
        else:
            action = None
        planned = action is not None
        committed_started, committed_version = committed.get(key, (None, None))
        rows.append(
            (
                *key,
                (valid_started if is_load else held_started) if planned else None,
                action,
                is_superseded if planned else None,
                cutoff[1] if planned and cutoff[0] else None,
                cutoff[2] if planned else None,
                committed_started,
                committed_version,
                fingerprint,
            )
        )
    return rows


PLAN_ROWS_SCHEMA = (
    "sync_id bigint, sync_run_id bigint, sync_run_started_at bigint, action string, "
    "is_superseded boolean, cutoff_started_at bigint, cutoff_sync_run_id bigint, "
    "committed_started_at bigint, committed_version bigint, inputs_fingerprint string"
)
PLAN_TIMES = ["sync_run_started_at", "cutoff_started_at", "committed_started_at"]


def plan_frame(session: SparkSession, rows: list[tuple]) -> DataFrame:
    """The plan's rows as a DataFrame of PLAN_COLUMNS, times as timestamps."""
    frame = local_frame(session, rows, PLAN_ROWS_SCHEMA)
    return frame.withColumns({name: F.timestamp_micros(name) for name in PLAN_TIMES}).select(
        *PLAN_COLUMNS
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


def runs_by_action(plan: DataFrame) -> dict[str | None, list[tuple[int, int]]]:
    """The (sync_id, sync_run_id) of the plan's runs by action, each list sorted: one collect."""
    runs: dict[str | None, list[tuple[int, int]]] = {}
    for row in plan.select(*RUN, "action").collect():
        runs.setdefault(row["action"], []).append((row["sync_id"], row["sync_run_id"]))
    return {action: sorted(keys) for action, keys in runs.items()}


def sync_ids_of(actions: dict[str | None, list[tuple[int, int]]]) -> list[int]:
    """The syncs of `runs_by_action`'s runs, sorted: those whose partitions a build rewrites."""
    return sorted({sync_id for runs in actions.values() for sync_id, _ in runs})


def in_runs(runs: list[tuple[int, int]]) -> Column:
    """A filter keeping the rows of `runs` ((sync_id, sync_run_id) pairs) by literal values, so
    that a table partitioned by those columns reads their partitions alone; false when `runs` is
    empty (Spark then reads nothing)."""
    by_sync: dict[int, list[int]] = {}
    for sync_id, sync_run_id in runs:
        by_sync.setdefault(sync_id, []).append(sync_run_id)
    keeps = [
        (F.col("sync_id") == sync_id) & F.col("sync_run_id").isin(run_ids)
        for sync_id, run_ids in sorted(by_sync.items())
    ]
    return functools.reduce(lambda left, right: left | right, keeps, F.lit(False))
