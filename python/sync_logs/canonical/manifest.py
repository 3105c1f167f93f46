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

What happens where: the listing is fingerprinted and classified on the driver (`lake`), and
grouped into folders there (`list_folders`: fingerprints, files, what a run folder's files
tell). The stored manifest's keys and fingerprints are collected once (`stored_folders`, a row
per folder) and what changed, left or is carried is decided on the driver too. Spark does only
what needs the files or the stored rows: it reads and parses the new runs' metadata.json
(`metadata`), inspects their record batches (`inspection`), reads changed fact files
(`objects.read_facts`), and composes the rows to write from local DataFrames of the folders and
the stored rows they keep (read from their syncs' partitions alone). A cold JVM then plans and
compiles none of the joins and aggregations of a few thousand listing rows it did before.
"""

import hashlib
from collections.abc import Callable, Iterable
from typing import NamedTuple

from pyspark.sql import Column, DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql import types as T

from sync_logs.canonical.inspection import RECORD_BATCH, inspect_files
from sync_logs.canonical.lake import (
    FACT_AREA,
    LAKE_FILE_COLUMNS,
    LAKE_FILE_TYPE,
    RUN_AREA,
    LakeFile,
    classify_entries,
    driver_entries,
    entries_fingerprint,
    listed_entries,
    utf8,
)
from sync_logs.canonical.lake_root import lake_root, require_lake
from sync_logs.canonical.local_rows import local_frame
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
BATCH_SCHEMA = (
    "folder_key string, expected_sync_id bigint, expected_sync_run_id bigint, path string, "
    "file_name string, batch_type string, batch_number int, length bigint, modified_micros bigint"
)
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


# A folder of the listing as `list_folders` finds it: `FOLDER_COLUMNS`, `RUN_LISTING_COLUMNS`
# (null on a folder that is not a run folder), its files and their fingerprint; times as
# microseconds (`folder_frame` makes them timestamps).
FOLDER_TYPE = T.StructType(
    [
        T.StructField("folder_key", T.StringType(), False),
        T.StructField("area", T.StringType(), False),
        *[T.StructField(name, T.LongType()) for name in RUN_KEY],
        T.StructField("is_run_folder", T.BooleanType(), False),
        T.StructField("run_folder", T.StringType()),
        T.StructField("fingerprint", T.StringType()),
        T.StructField("metadata_path", T.StringType()),
        T.StructField("record_file_count", T.LongType()),
        T.StructField("record_bytes", T.LongType()),
        T.StructField("last_modified_at", T.LongType()),
        T.StructField("folder_conflict", T.StringType()),
        T.StructField("listing_fingerprint", T.StringType()),
        T.StructField("files", T.ArrayType(LAKE_FILE_TYPE, containsNull=False)),
    ]
)
FOLDER_FIELDS = FOLDER_TYPE.fieldNames()


def folder_key_of(area: str, *ids: int | None) -> str:
    """`folder_key` of a folder: its area and the ids its path names."""
    return "/".join([area, *["" if value is None else str(value) for value in ids]])


def by_bytes(pick, texts: Iterable[str | None]) -> str | None:
    """Spark's `min` or `max` (`pick`) of strings: in UTF-8 byte order, nulls ignored."""
    return pick((text for text in texts if text is not None), key=utf8, default=None)


def sha256_lines(lines: Iterable[str]) -> str:
    """Spark's `sha2(array_join(array_sort(lines), "\\n"), 256)`: sorted by UTF-8 bytes."""
    return hashlib.sha256(b"\n".join(sorted(line.encode() for line in lines))).hexdigest()


def entry(name: str, file: LakeFile) -> str:
    return f"{name}|{file.length}|{file.modification_time}"


def struct_order(file: LakeFile) -> tuple:
    """The order `array_sort` gives structs: field by field, nulls first, strings by bytes."""
    return tuple(
        (value is not None, utf8(value) if isinstance(value, str) else value) for value in file
    )


def list_folders(files: Iterable[LakeFile]) -> list[dict]:
    """One row per folder of the classified listing (`lake.classify`): its files, sorted, the
    fingerprint of its listing and, for a run folder, what its loadable files tell
    (`RUN_LISTING_COLUMNS`); `FOLDER_FIELDS`, times in microseconds."""
    groups: dict[tuple, list[LakeFile]] = {}
    for file in files:
        ids = (file.org_id, file.sync_id, file.sync_run_id)
        groups.setdefault((file.area, *ids), []).append(file)
    return [
        folder_of(area, ids, listed)
        for (area, *ids), listed in sorted(
            groups.items(), key=lambda item: utf8(folder_key_of(*item[0]))
        )
    ]


def folder_of(area: str, ids: list[int | None], files: list[LakeFile]) -> dict:
    """`list_folders`' row of one folder."""
    in_run = [
        file
        for file in files
        if area == RUN_AREA and None not in ids and file.depth == 4 and file.file_kind != "hidden"
    ]
    batches = [file for file in in_run if file.file_kind == "record_batch"]
    loadable = [file for file in in_run if file.file_kind in ("record_batch", "run_metadata")]
    # Two folders naming this run (`880117` and `0880117`, or their sync or org folders): the
    # conflict is part of the fingerprint (the run is parsed again when it appears or goes)
    # and makes the run invalid. Without one, the fingerprint is the loadable files' alone.
    conflict = by_bytes(min, (file.folder_conflict for file in in_run))
    loadable_lines = sorted(entry(file.file_name, file).encode() for file in loadable)
    if conflict is not None:  # concat_ws: a null conflict is skipped
        loadable_lines.append(conflict.encode())
    fingerprint = b"\n".join(loadable_lines)
    run_listing = {
        "run_folder": by_bytes(min, (file.folder_path for file in in_run)),
        "fingerprint": hashlib.sha256(fingerprint).hexdigest(),
        "metadata_path": by_bytes(
            max, (file.path for file in in_run if file.file_kind == "run_metadata")
        ),
        "record_file_count": len(batches),
        "record_bytes": sum(file.length for file in batches),
        "last_modified_at": max((file.modification_time for file in in_run), default=None),
        "folder_conflict": conflict,
    }
    if not in_run:
        run_listing = dict.fromkeys(run_listing)
    return {
        "folder_key": folder_key_of(area, *ids),
        "area": area,
        **dict(zip(RUN_KEY, ids, strict=True)),
        "is_run_folder": bool(in_run),
        **run_listing,
        "listing_fingerprint": sha256_lines(entry(file.path, file) for file in files),
        "files": sorted(files, key=struct_order),
    }


def folder_frame(session: SparkSession, folders: list[dict]) -> DataFrame:
    """`folders` (`list_folders`) as a local DataFrame. Times travel as microseconds: a Python
    datetime is local wall time, ambiguous where clocks go back."""
    frame = local_frame(
        session, [tuple(folder[name] for name in FOLDER_FIELDS) for folder in folders], FOLDER_TYPE
    )
    return frame.withColumns(
        {
            "files": F.transform("files", file_time(F.timestamp_micros)),
            "last_modified_at": F.timestamp_micros("last_modified_at"),
        }
    )


def record_files_of(session: SparkSession, folders: list[dict]) -> DataFrame:
    """`record_files` per folder_key of the run `folders` (`list_folders`): their record
    batches, inspected. Taken from the listing alone, so that no metadata.json is read for it:
    the batches of a run that its metadata.json makes invalid are inspected too, and its
    `record_files` stay null (`manifest_rows`). Times travel as microseconds (a Python datetime
    is local wall time, ambiguous where clocks go back)."""
    batches = local_frame(
        session,
        [
            (
                folder["folder_key"],
                folder["sync_id"],
                folder["sync_run_id"],
                file.path,
                file.file_name,
                file.batch_type,
                file.batch_number,
                file.length,
                file.modification_time,
            )
            for folder in folders
            if folder["is_run_folder"]
            for file in folder["files"]
            if file.file_kind == "record_batch" and file.problem is None
        ],
        BATCH_SCHEMA,
    ).withColumn("modification_time", F.timestamp_micros("modified_micros"))
    inspected = inspect_files(
        session,
        batches.select("path", "length", "expected_sync_id", "expected_sync_run_id"),
        RECORD_BATCH,
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
    Fails, naming sync_logs_raw_root, when the root is not a lake (`lake_root`). The listing is
    checked, fingerprinted and classified on the driver."""
    root = lake_root(raw_root)
    entries = listed_entries(session, root)
    require_lake(session, root, None, previous, entries)
    fingerprint = entries_fingerprint(driver_entries(entries), salt=rules)
    return manifest_rows(session, lambda: classify_entries(entries), previous, fingerprint)


class StoredFolder(NamedTuple):
    """What a build needs of a stored manifest row to tell what changed."""

    listing_fingerprint: str | None
    fingerprint: str | None
    is_run: bool
    sync_id: int | None


class Stored(NamedTuple):
    """The stored manifest, as far as a build decides on it: its folders by folder_key and the
    `lake_fingerprint` of the rows the latest build wrote (None when there are none, or the
    table predates the column)."""

    folders: dict[str, StoredFolder]
    lake_fingerprint: str | None


def stored_folders(previous: DataFrame) -> Stored:
    """`Stored` of the manifest `previous`, collected once (a row per folder, a few hundred
    bytes each)."""
    has_lake_fingerprint = "lake_fingerprint" in previous.columns
    rows = previous.select(
        "folder_key",
        "listing_fingerprint",
        "fingerprint",
        F.col("is_valid").isNotNull().alias("is_run"),
        "sync_id",
        F.unix_micros("listed_at").alias("listed_micros"),
        (F.col("lake_fingerprint") if has_lake_fingerprint else F.lit(None).cast("string")).alias(
            "lake_fingerprint"
        ),
    ).collect()
    folders = {row["folder_key"]: StoredFolder(*row[1:5]) for row in rows}
    # The latest written rows: the greatest listed_at (nulls last, as Spark's descending order).
    latest = max(
        rows,
        key=lambda row: (row["listed_micros"] is not None, row["listed_micros"] or 0),
        default=None,
    )
    fingerprint = latest["lake_fingerprint"] if latest and has_lake_fingerprint else None
    return Stored(folders, fingerprint)


def lake_files_of(lake_files: DataFrame) -> list[LakeFile]:
    """The rows of a `lake.lake_files` DataFrame, collected, times in microseconds."""
    times = F.unix_micros("modification_time").alias("modification_time")
    columns = [times if name == "modification_time" else name for name in LAKE_FILE_COLUMNS]
    return [LakeFile(*row) for row in lake_files.select(*columns).collect()]


def build_manifest(
    session: SparkSession,
    lake_files: DataFrame,
    previous: DataFrame | None,
    lake_fingerprint: str | None = None,
) -> DataFrame:
    """`manifest_rows` of the classified files `lake_files` (`lake.lake_files`), collected."""
    return manifest_rows(session, lambda: lake_files_of(lake_files), previous, lake_fingerprint)


def stored_rows(previous: DataFrame, keys: dict[str, int | None]) -> DataFrame:
    """The rows of `previous` whose folder_key is among `keys` (folder_key: its sync_id), read
    from their syncs' partitions alone."""
    syncs = set(keys.values())
    in_syncs = F.col("sync_id").isin(sorted(sync for sync in syncs if sync is not None))
    if None in syncs:
        in_syncs = in_syncs | F.col("sync_id").isNull()
    return previous.filter(in_syncs & F.col("folder_key").isin(sorted(keys)))


def manifest_rows(
    session: SparkSession,
    classified: Callable[[], list[LakeFile]],
    previous: DataFrame | None,
    lake_fingerprint: str | None = None,
) -> DataFrame:
    """Rows to write: the folders whose listing changed (or that left the lake), and the other
    rows of the syncs they belong to; none when no folder changed. `classified` gives the
    classified files of the listing; `lake_fingerprint`: the fingerprint of that listing
    (`lake.entries_fingerprint`), taken before it; when the latest written rows hold the same,
    nothing is classified.

    What changed is decided on the driver, from the stored rows' keys and fingerprints
    (`stored_folders`) and the folders of the listing (`list_folders`); Spark reads and parses
    the new runs' metadata.json, inspects their record batches, reads changed fact files, and
    composes the rows from local DataFrames and the stored rows they carry."""
    stored = Stored({}, None) if previous is None else stored_folders(previous)
    if previous is not None:
        nothing = previous.limit(0)
        if lake_fingerprint is not None and stored.lake_fingerprint == lake_fingerprint:
            return nothing
    listed = list_folders(classified())
    unknown = StoredFolder(None, None, False, None)
    changed = [
        folder
        for folder in listed
        if stored.folders.get(folder["folder_key"], unknown).listing_fingerprint
        != folder["listing_fingerprint"]
    ]
    listed_keys = {folder["folder_key"] for folder in listed}
    left = {
        key: row.sync_id
        for key, row in stored.folders.items()
        if row.listing_fingerprint not in (None, EMPTY_LISTING) and key not in listed_keys
    }
    written = {folder["folder_key"]: folder["sync_id"] for folder in changed} | left
    if previous is not None and not written:  # nothing new: the build writes nothing
        return nothing

    def is_new_version(folder: dict) -> bool:
        stored_fingerprint = stored.folders.get(folder["folder_key"], unknown).fingerprint
        return folder["is_run_folder"] and stored_fingerprint != folder["fingerprint"]

    def is_stored_run(folder: dict) -> bool:
        return stored.folders.get(folder["folder_key"], unknown).is_run

    now = F.current_timestamp()
    fingerprint = F.lit(lake_fingerprint).cast("string")

    # Runs whose loadable files are new or changed: parsed, and inspected when valid.
    new_folders = [folder for folder in changed if is_new_version(folder)]
    new = folder_frame(session, new_folders)
    paths = [folder["metadata_path"] for folder in new_folders]
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
    inspected = record_files_of(session, new_folders)
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
    other_folders = [
        folder for folder in changed if not is_new_version(folder) and not is_stored_run(folder)
    ]
    others = folder_frame(session, other_folders)
    has_facts = any(
        file.file_kind == "fact" and file.problem is None
        for folder in other_folders
        if folder["area"] == FACT_AREA
        for file in folder["files"]
    )
    if has_facts:
        others = others.join(fact_rows_of(session, others), "folder_key", "left")
    else:
        others = others.withColumn("fact_rows", F.lit(None).cast(FACT_ROWS_TYPE))
    folders = others.select(
        *FOLDER_COLUMNS,
        *RUN_LISTING_COLUMNS,
        *typed_nulls(VERSION_COLUMNS, versions),
        "listing_fingerprint",
        "files",
        F.col("fact_rows").cast(FACT_ROWS_TYPE),
        now.alias("listed_at"),
        fingerprint.alias("lake_fingerprint"),
    ).select(*OUTPUT_COLUMNS)
    rows = versions.unionByName(folders)
    if previous is None:
        return rows

    # Runs whose loadable files did not change: the new listing, the stored version (a run
    # whose files all left keeps its row as it was).
    carried_folders = [
        folder for folder in changed if not is_new_version(folder) and is_stored_run(folder)
    ]
    stored_versions = stored_rows(
        previous, {folder["folder_key"]: folder["sync_id"] for folder in carried_folders}
    ).select("folder_key", *RUN_LISTING_COLUMNS, *VERSION_COLUMNS)
    carried = (
        folder_frame(session, carried_folders)
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
                name: F.when(F.col("is_run_folder"), F.col(f"listed_{name}")).otherwise(F.col(name))
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
    gone = (
        stored_rows(previous, left)
        .filter(F.col("listing_fingerprint") != EMPTY_LISTING)
        .select(*OUTPUT_COLUMNS)
        .withColumns(
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
    )
    # The other rows of the syncs written.
    touched = set(written.values())
    untouched = stored_rows(
        previous,
        {
            key: row.sync_id
            for key, row in stored.folders.items()
            if row.sync_id in touched and key not in written
        },
    ).select(*OUTPUT_COLUMNS)
    return rows.unionByName(carried).unionByName(gone).unionByName(untouched)
