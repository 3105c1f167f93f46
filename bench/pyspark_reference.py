"""The PySpark reference of bench/scale.py: the changelog, snapshot and run counters of
spec/output-tables.md as a plain PySpark job, without dbt and without the sync_logs library (its
rules are ported from bench/duckdb_reference.sql, statement by statement). No incremental logic:
every call recomputes everything from the whole lake, as a user without the package would.

    .venv/bin/python bench/pyspark_reference.py --lake LAKE --out DIR \\
        [--driver-memory 4g] [--shuffle-partitions 4]

writes DIR/{changelog,snapshot,runs}.parquet (Spark's folders of part files) with the columns
bench/duckdb_reference.py writes, and prints one JSON line: the settings, the seconds to start
the JVM and the seconds to compute. Valid lakes only, like the DuckDB reference: runs are kept
when metadata.json parses and agrees with the folder's ids; a corrupt parquet file, or a
record file whose columns are not of the spec's types (timestamps as text, say), fails the job.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

from pyspark.sql import Column, DataFrame, SparkSession, Window
from pyspark.sql import functions as F

RUN_PATH = r"/sync_tracking_datasets/([0-9]+)/([0-9]+)/([0-9]+)/[^/]+$"
BATCH_FILE = r"^(.+?)(\.([0-9]{1,9}))?\.parquet$"
# The spec's record columns: files are read by name with these types, a column a file lacks is
# null, columns the reference does not use are not read.
RECORD_SCHEMA = (
    "identifier string, record_payload string, operation string, status string, "
    "status_message string, batch_started_at timestamp, batch_ended_at timestamp"
)
# Spark lists more than 32 paths (here: every run folder's files) with a Spark job of one task
# per path, about 8 s for the 1,600 files of a 100,000-record lake on 2 cores; the driver lists
# them in well under a second.
DRIVER_LISTING = {"spark.sql.sources.parallelPartitionDiscovery.threshold": "1000000"}


def json_text(doc: Column, *keys: str) -> Column:
    """The first of `keys` (JSON paths such as `source.id`) present in the JSON text `doc`."""
    return F.coalesce(*(F.get_json_object(doc, f"$.{key}") for key in keys))


def runs(spark: SparkSession, lake: str) -> DataFrame:
    """One row per valid run: metadata.json in any writer's spelling, run_seq orders the runs
    of a sync (by start, then id)."""
    docs = spark.read.text(f"{lake}/sync_tracking_datasets/*/*/*/metadata.json", wholetext=True)
    path, j = F.col("_metadata.file_path"), F.col("value")
    parsed = docs.select(
        F.regexp_extract(path, RUN_PATH, 1).try_cast("bigint").alias("org_id"),
        F.regexp_extract(path, RUN_PATH, 2).try_cast("bigint").alias("sync_id"),
        F.regexp_extract(path, RUN_PATH, 3).try_cast("bigint").alias("sync_run_id"),
        json_text(j, "organization_id", "organizationId").try_cast("bigint").alias("meta_org_id"),
        json_text(j, "sync_id", "syncId", "sync_configuration_id", "syncConfigurationId")
        .try_cast("bigint").alias("meta_sync_id"),
        json_text(j, "sync_run_id", "syncRunId").try_cast("bigint").alias("meta_sync_run_id"),
        json_text(j, "workspace_id", "workspaceId").try_cast("bigint").alias("workspace_id"),
        json_text(j, "sync_run_started_at", "syncRunStartedAt").try_cast("timestamp")
        .alias("started_at"),
        json_text(j, "sync_run_finished_at", "syncRunFinishedAt", "completed_at", "completedAt")
        .try_cast("timestamp").alias("finished_at"),
        json_text(j, "sync_run_status", "syncRunStatus").alias("status"),
        json_text(j, "sync_run_error", "syncRunError").alias("error"),
        json_text(j, "behavior").alias("behavior"),
        json_text(j, "primary_key", "primaryKey").alias("primary_key"),
        json_text(j, "model_name", "modelName").alias("model_name"),
        json_text(j, "model_id", "modelId").try_cast("bigint").alias("model_id"),
        json_text(j, "split_group", "splitGroup").alias("split_group"),
        json_text(j, "source.id").try_cast("bigint").alias("source_id"),
        json_text(j, "source.object_id", "source.objectId").try_cast("bigint")
        .alias("source_object_id"),
        json_text(j, "destination.type").alias("destination"),
        json_text(j, "destination.id").try_cast("bigint").alias("destination_id"),
        json_text(j, "destination.object_id", "destination.objectId").try_cast("bigint")
        .alias("destination_object_id"),
    )
    valid = parsed.where(
        (F.col("meta_org_id") == F.col("org_id"))
        & (F.col("meta_sync_id") == F.col("sync_id"))
        & (F.col("meta_sync_run_id") == F.col("sync_run_id"))
        & F.col("started_at").isNotNull()
    ).drop("meta_org_id", "meta_sync_id", "meta_sync_run_id")
    order = Window.partitionBy("sync_id").orderBy("started_at", "sync_run_id")
    return valid.withColumn("run_seq", F.dense_rank().over(order))


def records(spark: SparkSession, lake: str) -> DataFrame:
    """Every raw record with its run's ids, file, batch type and number, and row in the file."""
    raw = spark.read.schema(RECORD_SCHEMA).parquet(
        f"{lake}/sync_tracking_datasets/*/*/*/*.parquet")
    path, name = F.col("_metadata.file_path"), F.col("_metadata.file_name")
    return raw.select(
        F.regexp_extract(path, RUN_PATH, 1).try_cast("bigint").alias("org_id"),
        F.regexp_extract(path, RUN_PATH, 2).try_cast("bigint").alias("sync_id"),
        F.regexp_extract(path, RUN_PATH, 3).try_cast("bigint").alias("sync_run_id"),
        name.alias("batch_file"),
        F.regexp_extract(name, BATCH_FILE, 1).alias("batch_type"),
        F.nullif(F.regexp_extract(name, BATCH_FILE, 3), F.lit("")).try_cast("int")
        .alias("batch_number"),
        F.col("_metadata.row_index").alias("batch_row_index"),
        *raw.columns,
    )


def file_order(*leading: str) -> Column:
    """Order of attempts: `leading` columns, then batch start (missing last), type, number and
    the row in the file."""
    return F.struct(
        *leading,
        F.col("batch_started_at").isNull(),
        F.coalesce("batch_started_at", F.timestamp_seconds(F.lit(0))),
        "batch_type",
        F.coalesce("batch_number", F.lit(-1)),
        "batch_row_index",
    )


def changelog(raw: DataFrame, valid_runs: DataFrame) -> DataFrame:
    """One row per record attempt: exact re-deliveries folded into their first copy, status
    mapped, op_type by the four rules in order against the row's last succeeded state in an
    earlier run of its sync, and payload_changed."""
    copy = ["org_id", "status_message", "batch_started_at", "batch_ended_at", "batch_file",
            "batch_type", "batch_number", "batch_row_index"]
    folded = raw.groupBy(
        "sync_id", "sync_run_id", "identifier", "record_payload", "operation", "status"
    ).agg(
        F.min_by(F.struct(*copy), file_order()).alias("first"),
        (F.count("*") - 1).alias("redelivery_count"),
    ).select("*", *(F.col(f"first.{c}").alias(c) for c in copy)).drop("first")
    run_columns = ["sync_id", "sync_run_id", "error", "split_group", "behavior", "started_at",
                   "run_seq"]
    attempts = folded.join(F.broadcast(valid_runs.select(*run_columns)),
                           ["sync_id", "sync_run_id"])

    word = F.lower(F.trim("status"))
    aborted = F.col("status").isNull() | (F.trim("status") == "")
    trimmed = F.trim("record_payload")
    is_object = (trimmed.startswith("{") & trimmed.endswith("}")
                 & F.json_object_keys("record_payload").isNotNull())
    attempts = attempts.select(
        "*",
        F.col("identifier").alias("row_id"),
        F.when(aborted, "aborted").when(word == "succeeded", "succeeded")
        .when(word == "rejected", "failed")
        .when(word.isin("null", "duplicate"), "invalid").otherwise("failed")
        .alias("changelog_status"),
        F.when(aborted, F.col("error")).when(word == "succeeded", None)
        .when(word == "rejected", F.col("status_message"))
        .when(word == "null", "null identifier")
        .when(word == "duplicate", "duplicate identifier")
        .otherwise(F.coalesce("status_message", F.concat(F.lit("unknown status: "), "status")))
        .alias("failed_reason"),
        F.when(is_object, F.col("record_payload")).alias("fields"),
        # rules 1 and 2 need no history
        F.when(F.col("identifier").isNull(), None)
        .when((F.lower("operation") == "append") | (F.lower("behavior") == "append"), "added")
        .when(F.lower("operation") == "delete", "removed").alias("base_op"),
    )

    # the row's last succeeded attempt in an earlier run: removed or not, and its payload
    succeeded = F.col("changelog_status") == "succeeded"
    state = F.struct(F.coalesce(F.col("base_op") == "removed", F.lit(False)).alias("is_removed"),
                     F.col("record_payload").alias("payload"))
    earlier_runs = (Window.partitionBy("sync_id", "row_id").orderBy("run_seq")
                    .rangeBetween(Window.unboundedPreceding, -1))
    previous = F.max_by(F.when(succeeded, state), F.when(succeeded, file_order("run_seq")))
    attempts = attempts.withColumn(
        "previous", F.when(F.col("row_id").isNotNull(), previous.over(earlier_runs)))

    op_type = (
        F.when(F.col("row_id").isNull(), None)
        .when(F.col("base_op").isNotNull(), F.col("base_op"))
        .when(F.col("previous").isNull() | F.col("previous.is_removed"), "added")
        .otherwise("changed")
    )
    attempts = attempts.withColumn("op_type", op_type)
    payload_changed = (
        F.when(F.col("op_type").isNull(), None)
        .when(F.col("op_type") == "added", True)
        .when(F.col("op_type") == "removed", False)
        .otherwise(~F.col("previous.payload").eqNullSafe(F.col("record_payload")))
    )
    return attempts.select(
        "org_id", "sync_id", "sync_run_id", "op_type", "row_id",
        F.col("changelog_status").alias("status"), "failed_reason", "fields", "split_group",
        "operation", F.col("status").alias("raw_status"),
        payload_changed.alias("payload_changed"), "batch_started_at", "batch_ended_at",
        "batch_file", F.col("started_at").alias("sync_run_started_at"), "batch_type",
        "batch_number", "batch_row_index", "redelivery_count",
    )


def snapshot(valid_runs: DataFrame, changes: DataFrame) -> DataFrame:
    """Latest state of every row per sync; `unchanged` when the row was not in the sync's most
    recent run; rows whose latest attempt is a succeeded removal are absent, a removal that did
    not succeed reads `changed` (the row is still in the destination)."""
    latest_runs = valid_runs.groupBy("sync_id").agg(
        F.max_by("sync_run_id", F.struct("started_at", "sync_run_id"))
        .alias("latest_sync_run_id"))
    latest = F.struct(
        "sync_run_id", "op_type", "status", "failed_reason", "fields", "split_group",
        F.coalesce("batch_started_at", "sync_run_started_at").alias("attempted_at"),
    )
    done_at = F.coalesce("batch_ended_at", "batch_started_at", "sync_run_started_at")
    succeeded = F.col("status") == "succeeded"
    rows = changes.where(F.col("row_id").isNotNull()).groupBy("sync_id", "row_id").agg(
        F.max_by(latest, file_order("sync_run_started_at", "sync_run_id")).alias("latest"),
        F.max(F.when(succeeded, done_at)).alias("last_succeeded_at"),
        F.min(F.when(succeeded & (F.col("op_type") == "added"), done_at))
        .alias("first_added_at"),
    )
    return (
        rows.join(F.broadcast(latest_runs), "sync_id", "left")
        .where(~((F.col("latest.op_type") == "removed")
                 & (F.col("latest.status") == "succeeded")))
        .select(
            "sync_id",
            F.col("latest.sync_run_id").alias("sync_run_id"),
            F.when(~F.col("latest.sync_run_id").eqNullSafe(F.col("latest_sync_run_id")),
                   "unchanged")
            .when(F.col("latest.op_type") == "removed", "changed")
            .otherwise(F.col("latest.op_type")).alias("op_type"),
            "row_id",
            *(F.col(f"latest.{c}").alias(c)
              for c in ("status", "failed_reason", "fields", "split_group")),
            F.col("latest.attempted_at").alias("last_attempted_at"),
            "last_succeeded_at",
            "first_added_at",
        )
    )


def run_counters(valid_runs: DataFrame, changes: DataFrame) -> DataFrame:
    """One row per valid run (zero-record runs too): its metadata and counters."""
    statuses = {
        "planned": F.col("status") != "invalid",
        "attempted": F.col("status").isin("succeeded", "failed"),
        "succeeded": F.col("status") == "succeeded",
        "failed": F.col("status") == "failed",
    }
    ops = {"add": "added", "change": "changed", "remove": "removed"}
    counters = [
        F.count(F.when((F.col("op_type") == op_type) & condition, 1)).alias(f"num_{kind}_{op}")
        for kind, condition in statuses.items()
        for op, op_type in ops.items()
    ]
    counts = changes.groupBy("sync_id", "sync_run_id").agg(
        *counters,
        F.count(F.when(F.col("status") == "invalid", 1)).alias("num_invalid"),
        F.count("*").alias("num_changelog_rows"),
        F.sum(F.col("redelivery_count") + 1).alias("num_records"),
    )
    counter_names = [c for c in counts.columns if c not in ("sync_id", "sync_run_id")]
    joined = valid_runs.drop("run_seq").join(counts, ["sync_id", "sync_run_id"], "left")
    joined = joined.fillna(0, subset=counter_names)
    return joined.select(
        "sync_id", "sync_run_id", "org_id", "workspace_id", "primary_key", "destination",
        "model_name", "model_id", "status", "error", "started_at", "finished_at", "behavior",
        "split_group", "source_id", "source_object_id", "destination_id",
        "destination_object_id",
        *(c for c in counter_names if c not in ("num_changelog_rows", "num_records")),
        (F.col("num_records") - F.col("num_changelog_rows")).alias("num_redelivered"),
        "num_records",
    )


def write(frame: DataFrame, path: Path) -> None:
    """Parquet with microsecond timestamps (Spark's default, INT96, reads back zone-less in
    DuckDB); the session's setting is restored after."""
    conf, key = frame.sparkSession.conf, "spark.sql.parquet.outputTimestampType"
    before = conf.get(key)
    conf.set(key, "TIMESTAMP_MICROS")
    try:
        frame.write.mode("overwrite").parquet(str(path))
    finally:
        conf.set(key, before)


def reference(spark: SparkSession, lake: Path, out: Path) -> None:
    """Compute the three tables of `lake` into `out`. The changelog is written first and read
    back for the snapshot and the counters, so it is computed once."""
    out.mkdir(parents=True, exist_ok=True)
    lake_uri = Path(lake).resolve().as_uri()
    valid_runs = runs(spark, lake_uri).cache()
    write(changelog(records(spark, lake_uri), valid_runs), out / "changelog.parquet")
    changes = spark.read.parquet(str(out / "changelog.parquet"))
    write(snapshot(valid_runs, changes), out / "snapshot.parquet")
    write(run_counters(valid_runs, changes), out / "runs.parquet")
    valid_runs.unpersist()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lake", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--driver-memory", default="4g",
                        help="spark.driver.memory (default: the `local` target's, 4g)")
    parser.add_argument("--shuffle-partitions", type=int, default=4,
                        help="spark.sql.shuffle.partitions (default: the `local` target's, 4)")
    args = parser.parse_args(argv)

    from sync_logs.spark import local_session  # the session only, none of the rules

    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="pyspark_reference_") as warehouse:
        spark = local_session(Path(warehouse), args.driver_memory, args.shuffle_partitions)
        spark.sparkContext.setLogLevel("ERROR")
        for name, value in DRIVER_LISTING.items():
            spark.conf.set(name, value)
        jvm_start = time.monotonic() - started
        reference(spark, args.lake, args.out)
        compute = time.monotonic() - started - jvm_start
        settings = {
            name: spark.conf.get(name)
            for name in ("spark.master", "spark.driver.memory", "spark.sql.shuffle.partitions",
                         "spark.sql.adaptive.enabled", *DRIVER_LISTING)
        }
        settings["spark_version"] = spark.version
        spark.stop()
    print(json.dumps({"seconds": round(time.monotonic() - started, 2),
                      "jvm_start_s": round(jvm_start, 2), "compute_s": round(compute, 2),
                      "settings": settings}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
