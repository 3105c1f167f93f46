"""The run manifest (`int_sync_logs__run_manifest`): the lake's inventory, one row per folder
ever listed, keyed by `folder_key` (the area and the ids its path names).

- A run folder (`sync_tracking_datasets/<org>/<sync>/<run>`, integer names): the fingerprint of
  its loadable files, its parsed metadata.json and validity (`metadata`) and, when valid, its
  inspected record batches (`record_files`, by `inspection`). `is_valid` is null on every
  other row.
- An org's fact folder (`metadata/<org>`): the rows of its fact files (`fact_rows`, read by
  `objects.read_facts`).
- Any other folder that holds files: stray, misplaced, badly named or hidden ones.

`files` is what the folder holds now, classified (`lake`): empty once the folder has left the
lake (`in_lake`). The row stays: a run's history outlives its folder.

A build lists the lake and writes the folders whose listing changed (`listing_fingerprint`),
with the other rows of their syncs (the table is partitioned by sync_id), and nothing when no
folder changed. The rows a build writes carry the fingerprint of the whole listing
(`lake_fingerprint`): when the lake lists as it did for the latest written rows, the build
classifies nothing and writes nothing.

A run folder whose loadable files changed (`fingerprint`) gets a new `manifest_version` (the
build's start in microseconds: it grows from build to build): its metadata.json is parsed and
its record batches are inspected again, and the plan reloads it. Any other run folder keeps its
version, metadata and inspection.
"""

import hashlib
from collections.abc import Callable

from pyspark.sql import Column, DataFrame, SparkSession
from pyspark.sql import functions as F

from sync_logs.canonical.inspection import RECORD_BATCH, inspect_files
from sync_logs.canonical.lake import (
    FACT_AREA,
    LAKE_FILE_COLUMNS,
    RUN_AREA,
    classify_files,
    lake_entries,
    list_lake,
    listing_fingerprint,
)
from sync_logs.canonical.lake_root import lake_root, require_lake
from sync_logs.canonical.metadata import parse_metadata, read_metadata_texts
from sync_logs.canonical.objects import FACT_ROW_COLUMNS, FACT_ROWS_TYPE, read_facts

RUN_KEY = ["org_id", "sync_id", "sync_run_id"]
FOLDER_COLUMNS = ["folder_key", "area", *RUN_KEY]
# The fingerprint of a folder that holds no file (any more).
EMPTY_LISTING = hashlib.sha256(b"").hexdigest()
# What a run folder's listing tells of its loadable files (null on other folders).
RUN_LISTING_COLUMNS = [
    "run_folder",
    "fingerprint",
    "metadata_path",
    "record_file_count",
    "record_bytes",
    "last_modified_at",
]
PARSED_COLUMNS = [
    "is_valid",
    "invalid_reason",
    "unknown_keys",
    "workspace_id",
    "sync_run_started_at",
    "sync_run_finished_at",
    "sync_run_status",
    "sync_run_error",
    "behavior",
    "primary_key",
    "model_name",
    "model_id",
    "split_group",
    "record_payload_schema",
    "source_type",
    "source_id",
    "source_object_id",
    "source_object_name",
    "destination_type",
    "destination_id",
    "destination_object_id",
    "destination_object_type",
    "destination_object_name",
    "metadata_text",
]
# What a run keeps until its loadable files change.
VERSION_COLUMNS = [*PARSED_COLUMNS, "manifest_version", "manifest_updated_at", "record_files"]
LISTING_COLUMNS = ["listing_fingerprint", "files", "fact_rows", "listed_at", "lake_fingerprint"]
OUTPUT_COLUMNS = [
    "folder_key",
    "area",
    "org_id",
    "sync_run_id",
    *RUN_LISTING_COLUMNS,
    *VERSION_COLUMNS,
    *LISTING_COLUMNS,
    "sync_id",
]
# A record batch to inspect: its run folder, the ids its folder names, what the listing says.
BATCH_COLUMNS = [
    "folder_key",
    "expected_sync_id",
    "expected_sync_run_id",
    "path",
    "file_name",
    "batch_type",
    "batch_number",
    "length",
]
# One inspected record batch of a valid run (`int_sync_logs__record_files`).
RECORD_FILE_FIELDS = [
    "path",
    "file_name",
    "batch_type",
    "batch_number",
    "length",
    "modification_time",
    "num_rows",
    "read_schema",
    "extra_columns",
    "missing_columns",
    "problem",
    "is_loaded",
]


def folder_key() -> Column:
    """`area/org_id/sync_id/sync_run_id`, an id left empty where the path names none."""
    ids = [F.coalesce(F.col(name).cast("string"), F.lit("")) for name in RUN_KEY]
    return F.concat_ws("/", F.col("area"), *ids)


def in_lake() -> Column:
    """A manifest row's folder is in the lake now: it holds a file that is not hidden."""
    return F.exists("files", lambda file: file["file_kind"] != "hidden")


def list_folders(lake_files: DataFrame) -> DataFrame:
    """One row per folder of the listing (`lake.lake_files`): its files, the fingerprint of its
    listing and, for a run folder, what its loadable files tell (`RUN_LISTING_COLUMNS`)."""
    in_run = (
        (F.col("area") == RUN_AREA)
        & F.col("org_id").isNotNull()
        & F.col("sync_id").isNotNull()
        & F.col("sync_run_id").isNotNull()
        & (F.col("depth") == 4)
        & (F.col("file_kind") != "hidden")
    )
    batch = in_run & (F.col("file_kind") == "record_batch")
    loadable = batch | (in_run & (F.col("file_kind") == "run_metadata"))

    def entry(name: str) -> Column:
        micros = F.unix_micros(F.col("modification_time")).cast("string")
        return F.concat_ws("|", F.col(name), F.col("length").cast("string"), micros)

    # Two folders naming this run (`880117` and `0880117`, or their sync or org folders): the
    # conflict is part of the fingerprint (the run is parsed again when it appears or goes)
    # and makes the run invalid. Without one, the fingerprint is the loadable files' alone.
    conflict = F.min(F.when(in_run, F.col("folder_conflict")))
    folders = (
        lake_files.withColumn("folder_key", folder_key())
        .groupBy(*FOLDER_COLUMNS)
        .agg(
            F.max(in_run).alias("is_run_folder"),
            F.min(F.when(in_run, F.col("folder_path"))).alias("run_folder"),
            F.sha2(
                F.concat_ws(
                    "\n",
                    F.array_join(
                        F.array_sort(F.collect_list(F.when(loadable, entry("file_name")))), "\n"
                    ),
                    conflict,
                ),
                256,
            ).alias("fingerprint"),
            conflict.alias("folder_conflict"),
            F.max(F.when(in_run & (F.col("file_kind") == "run_metadata"), F.col("path"))).alias(
                "metadata_path"
            ),
            F.count(F.when(batch, 1)).alias("record_file_count"),
            F.coalesce(F.sum(F.when(batch, F.col("length"))), F.lit(0))
            .cast("bigint")
            .alias("record_bytes"),
            F.max(F.when(in_run, F.col("modification_time"))).alias("last_modified_at"),
            F.sha2(F.array_join(F.array_sort(F.collect_list(entry("path"))), "\n"), 256).alias(
                "listing_fingerprint"
            ),
            F.array_sort(F.collect_list(F.struct(*LAKE_FILE_COLUMNS))).alias("files"),
        )
    )
    run_only = {
        name: F.when(F.col("is_run_folder"), F.col(name))
        for name in [*RUN_LISTING_COLUMNS, "folder_conflict"]
    }
    return folders.withColumns(run_only)


def record_files_of(session: SparkSession, runs: DataFrame) -> DataFrame:
    """`record_files` per folder_key of the valid `runs`: their record batches, inspected."""
    batches = (
        runs.filter(F.col("is_valid"))
        .select(
            "folder_key",
            F.col("sync_id").alias("expected_sync_id"),
            F.col("sync_run_id").alias("expected_sync_run_id"),
            F.inline("files"),
        )
        .filter((F.col("file_kind") == "record_batch") & F.col("problem").isNull())
        .select(*BATCH_COLUMNS, F.unix_micros("modification_time").alias("modified_micros"))
    )
    # The batch list comes to the driver once, so that the runs' metadata.json is not read
    # again for each use of it. Times travel as microseconds (a Python datetime is local wall
    # time, ambiguous where clocks go back).
    batches = session.createDataFrame(batches.collect(), batches.schema).withColumn(
        "modification_time", F.timestamp_micros("modified_micros")
    )
    inspected = inspect_files(
        session, batches.select("path", "expected_sync_id", "expected_sync_run_id"), RECORD_BATCH
    ).withColumnRenamed("problem", "inspection_problem")
    files = batches.join(inspected, "path", "left")
    problem = F.coalesce(
        F.col("inspection_problem"),
        F.when(F.col("length") == 0, F.lit("empty file (0 bytes)")),
        F.when(F.col("num_rows").isNull(), F.lit("file not read")),
    )
    described = files.withColumn("problem", problem).withColumn(
        "is_loaded", F.col("problem").isNull()
    )
    return described.groupBy("folder_key").agg(
        F.array_sort(F.collect_list(F.struct(*RECORD_FILE_FIELDS))).alias("record_files")
    )


def fact_rows_of(session: SparkSession, folders: DataFrame) -> DataFrame:
    """`fact_rows` per folder_key of the fact folders among `folders`: their fact files' rows."""
    fact_files = (
        folders.filter(F.col("area") == FACT_AREA)
        .select("folder_key", F.inline("files"))
        .filter((F.col("file_kind") == "fact") & F.col("problem").isNull())
    )
    facts = read_facts(session, fact_files)
    return (
        facts.join(fact_files.select("path", "folder_key"), "path")
        .groupBy("folder_key")
        .agg(F.array_sort(F.collect_list(F.struct(*FACT_ROW_COLUMNS))).alias("fact_rows"))
    )


def on_the_driver(session: SparkSession, folders: DataFrame) -> DataFrame:
    """`folders` computed once and brought to the driver, so that the listing is not classified
    again for each use of it (a folder row is a few hundred bytes; the files of an unchanged
    folder stay behind). Times travel as microseconds: a Python datetime is local wall time,
    ambiguous where clocks go back."""
    unchanged = F.col("stored_listing").eqNullSafe(F.col("listing_fingerprint"))
    micros = folders.withColumns(
        {
            "files": F.when(~unchanged, F.transform("files", file_time(F.unix_micros))),
            "last_modified_at": F.unix_micros("last_modified_at"),
        }
    )
    local = session.createDataFrame(micros.collect(), micros.schema)
    return local.withColumns(
        {
            "files": F.transform("files", file_time(F.timestamp_micros)),
            "last_modified_at": F.timestamp_micros("last_modified_at"),
        }
    )


def file_time(convert) -> Callable[[Column], Column]:
    def converted(file: Column) -> Column:
        return file.withField("modification_time", convert(file["modification_time"]))

    return converted


def typed_nulls(names: list[str], like: DataFrame) -> list[Column]:
    return [F.lit(None).cast(like.schema[name].dataType).alias(name) for name in names]


def empty_array(name: str, like: DataFrame) -> Column:
    return F.array().cast(like.schema[name].dataType)


def current_manifest(
    session: SparkSession, raw_root: str, previous: DataFrame | None, rules: str = ""
) -> DataFrame:
    """`build_manifest` of the lake at `raw_root` as listed now. `rules` names the library
    version that classifies the listing: a new version classifies an unchanged lake again.
    Fails, naming sync_logs_raw_root, when the root is not a lake (`lake_root`). A listing
    made on the driver is checked and fingerprinted there, without a Spark job."""
    root = lake_root(raw_root)
    entries = lake_entries(session, root)
    listing = list_lake(session, root, entries)
    require_lake(session, root, listing, previous, entries)
    fingerprint = listing_fingerprint(listing, salt=rules, entries=entries)
    lake_files = classify_files(listing).select(*LAKE_FILE_COLUMNS)
    return build_manifest(session, lake_files, previous, lake_fingerprint=fingerprint)


def stored_lake_fingerprint(previous: DataFrame) -> str | None:
    """The `lake_fingerprint` of the rows the latest build wrote; None when there are none (or
    the table predates the column)."""
    if "lake_fingerprint" not in previous.columns:
        return None
    latest = (
        previous.select("listed_at", "lake_fingerprint")
        .orderBy(F.col("listed_at").desc())
        .limit(1)
        .collect()
    )
    return latest[0]["lake_fingerprint"] if latest else None


def build_manifest(
    session: SparkSession,
    lake_files: DataFrame,
    previous: DataFrame | None,
    lake_fingerprint: str | None = None,
) -> DataFrame:
    """Rows to write: the folders whose listing changed (or that left the lake), and the other
    rows of the syncs they belong to; none when no folder changed. `lake_fingerprint`: of the
    listing that `lake_files` classifies (`lake.listing_fingerprint`), taken before it; when the
    latest written rows hold the same, nothing is classified."""
    if previous is not None:
        nothing = previous.limit(0)
        if lake_fingerprint is not None and stored_lake_fingerprint(previous) == lake_fingerprint:
            return nothing
    listed = list_folders(lake_files)
    if previous is None:
        listed = listed.withColumns(
            {
                "stored_listing": F.lit(None).cast("string"),
                "stored_fingerprint": F.lit(None).cast("string"),
                "stored_run": F.lit(False),
            }
        )
    else:
        stored = previous.select(
            "folder_key",
            F.col("listing_fingerprint").alias("stored_listing"),
            F.col("fingerprint").alias("stored_fingerprint"),
            F.col("is_valid").isNotNull().alias("stored_run"),
        )
        listed = listed.join(stored, "folder_key", "left").withColumn(
            "stored_run", F.coalesce(F.col("stored_run"), F.lit(False))
        )
    listed = on_the_driver(session, listed)
    changed = listed.filter(~F.col("stored_listing").eqNullSafe(F.col("listing_fingerprint")))
    if previous is not None:
        left = previous.filter(F.col("listing_fingerprint") != EMPTY_LISTING).join(
            listed.select("folder_key"), "folder_key", "left_anti"
        )
        written = changed.select("folder_key", "sync_id").unionByName(
            left.select("folder_key", "sync_id")
        )
        if not written.limit(1).collect():  # nothing new: the build writes nothing
            return nothing

    now = F.current_timestamp()
    fingerprint = F.lit(lake_fingerprint).cast("string")
    is_new_version = F.col("is_run_folder") & ~F.col("stored_fingerprint").eqNullSafe(
        F.col("fingerprint")
    )

    # Runs whose loadable files are new or changed: parsed, and inspected when valid.
    new = changed.filter(is_new_version)
    paths = [row["metadata_path"] for row in new.select("metadata_path").collect()]
    texts = read_metadata_texts(session, [path for path in paths if path is not None])
    parsed = parse_metadata(new.join(texts, "metadata_path", "left")).withColumns(
        {
            "manifest_version": F.unix_micros(now),
            "manifest_updated_at": now,
            "fact_rows": F.lit(None).cast(FACT_ROWS_TYPE),
            "listed_at": now,
            "lake_fingerprint": fingerprint,
        }
    )
    inspected = record_files_of(session, parsed)
    versions = (
        parsed.join(inspected, "folder_key", "left")
        .withColumn(
            "record_files",
            F.when(
                F.col("is_valid"),
                F.coalesce(F.col("record_files"), empty_array("record_files", inspected)),
            ),
        )
        .select(*OUTPUT_COLUMNS)
    )

    # Other folders: their listing, and the rows of their fact files.
    others = changed.filter(~is_new_version & ~F.col("stored_run"))
    folders = (
        others.join(fact_rows_of(session, others), "folder_key", "left")
        .select(
            *FOLDER_COLUMNS,
            *RUN_LISTING_COLUMNS,
            *typed_nulls(VERSION_COLUMNS, versions),
            "listing_fingerprint",
            "files",
            F.col("fact_rows").cast(FACT_ROWS_TYPE),
            now.alias("listed_at"),
            fingerprint.alias("lake_fingerprint"),
        )
        .select(*OUTPUT_COLUMNS)
    )
    rows = versions.unionByName(folders)
    if previous is None:
        return rows

    # Runs whose loadable files did not change: the new listing, the stored version (a run
    # whose files all left keeps its row as it was).
    stored_versions = previous.select("folder_key", *RUN_LISTING_COLUMNS, *VERSION_COLUMNS)
    carried = (
        changed.filter(~is_new_version & F.col("stored_run"))
        .select(
            *FOLDER_COLUMNS,
            "is_run_folder",
            *[F.col(name).alias(f"listed_{name}") for name in RUN_LISTING_COLUMNS],
            "listing_fingerprint",
            "files",
        )
        .join(stored_versions, "folder_key")
        .withColumns(
            {
                name: F.when(F.col("is_run_folder"), F.col(f"listed_{name}")).otherwise(
                    F.col(name)
                )
                for name in RUN_LISTING_COLUMNS
            }
        )
        .withColumns(
            {
                "fact_rows": F.lit(None).cast(FACT_ROWS_TYPE),
                "listed_at": now,
                "lake_fingerprint": fingerprint,
            }
        )
        .select(*OUTPUT_COLUMNS)
    )
    # Folders that left the lake: no file any more, the rest as it was.
    gone = left.select(*OUTPUT_COLUMNS).withColumns(
        {
            "listing_fingerprint": F.lit(EMPTY_LISTING),
            "files": empty_array("files", versions),
            "fact_rows": F.when(
                F.col("fact_rows").isNotNull(), empty_array("fact_rows", versions)
            ),
            "listed_at": now,
            "lake_fingerprint": fingerprint,
        }
    )
    touched = written.select("sync_id").distinct().alias("touched")
    untouched = (
        previous.alias("row")
        .join(touched, F.col("row.sync_id").eqNullSafe(F.col("touched.sync_id")), "left_semi")
        .join(written.select("folder_key"), "folder_key", "left_anti")
        .select(*OUTPUT_COLUMNS)
    )
    return rows.unionByName(carried).unionByName(gone).unionByName(untouched)
