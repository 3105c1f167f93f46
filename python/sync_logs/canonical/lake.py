"""Lake listing: every file under the lake root, with names, sizes and times, never contents.

A local lake (a plain path or a file: URI, the embedded default) is listed with `os.walk` on the
driver, so the listing sees what Spark's readers hide: names starting with `_` or `.`
(`_SUCCESS`, `.crc` checksums, `_temporary/`) and empty files. Hidden files are never loaded;
they are reported as ignored, grouped by the folder that holds them. Any other URI (s3a://,
abfss://, gs://, dbfs:/) is listed by Spark's `binaryFile` source, which skips hidden names and
empty files: they are not reported there. No JVM access, so it runs on Spark Connect and
Databricks shared clusters.

Folder names must be decimal integers; two folders naming the same integer (`880117` and
`0880117`, at the org, sync or run level) conflict, and the files under both are not loaded.
"""

import hashlib
import os
import re

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql.utils import AnalysisException

RUN_AREA = "sync_tracking_datasets"
FACT_AREA = "metadata"
FACT_FILES = ("source_objects.parquet", "destinations.parquet", "destination_objects.parquet")
# An id folder holds a decimal integer that fits a bigint.
INTEGER_NAME = r"^[0-9]{1,18}$"
# <batch_type>.<batch_number>.parquet, or the older <batch_type>.parquet.
BATCH_FILE = r"^(.+?)(\.([0-9]{1,9}))?\.parquet$"
STRAY_RUN_FILE = "stray file: neither metadata.json nor <batch_type>.<batch_number>.parquet"
LISTING_SCHEMA = "path string, length bigint, modification_time timestamp, area string"
RAW_LISTING_SCHEMA = "path string, length bigint, modification_ms bigint"
# A hidden name, by the convention every Spark and Hadoop reader follows.
HIDDEN_NAME = r"^[_.]"


def local_folder(location: str) -> str | None:
    """The absolute local path of `location` (a plain path or a file: URI); None for any other
    URI (object stores), which Spark's own listing serves."""
    if location.startswith("file:"):
        return "/" + location[len("file:"):].lstrip("/")
    if "://" in location or re.match(r"^[A-Za-z][A-Za-z0-9+.-]*:", location):
        return None
    return os.path.abspath(location)


def local_listing(location: str) -> list[tuple] | None:
    """(path, length, modification ms) of every file under a local `location` (a plain path or
    a file: URI), hidden names and empty files included; [] when the folder does not exist;
    None for any other URI (object stores), which Spark's own listing serves."""
    folder = local_folder(location)
    if folder is None:
        return None
    if not os.path.isdir(folder):
        return []
    entries = []
    for parent, _, names in os.walk(folder):
        for name in names:
            path = os.path.join(parent, name)
            status = os.stat(path)
            entries.append((f"file:{path}", status.st_size, int(status.st_mtime * 1000)))
    return entries


def list_area(session: SparkSession, raw_root: str, area: str) -> DataFrame:
    """path/length/modification_time of every file under <raw_root>/<area> (empty if absent)."""
    location = raw_root.rstrip("/") + "/" + area
    entries = local_listing(location)
    if entries is not None:
        listing = session.createDataFrame(entries, RAW_LISTING_SCHEMA)
        return listing.select(
            "path",
            "length",
            F.timestamp_millis("modification_ms").alias("modification_time"),
            F.lit(area).alias("area"),
        )
    try:
        listing = (
            session.read.format("binaryFile").option("recursiveFileLookup", "true").load(location)
        )
    except AnalysisException:
        # The folder does not exist (yet): a lake without runs or without fact files.
        return session.createDataFrame([], LISTING_SCHEMA)
    return listing.select(
        F.col("path"),
        F.col("length").cast("bigint").alias("length"),
        F.col("modificationTime").alias("modification_time"),
        F.lit(area).alias("area"),
    )


def folder_conflicts(files: DataFrame) -> DataFrame:
    """Per folder named by its texts: the conflict when another folder names the same integer.

    `files` holds area, the *_text and id columns; the result one row per distinct folder
    triple with `folder_conflict` (null when none), checked org first, then sync, then run.
    """
    texts = ["org_id_text", "sync_id_text", "sync_run_id_text"]
    folders = files.select("area", *texts, "org_id", "sync_id", "sync_run_id").distinct()
    levels = [
        ("org_id", ["org_id"], "org_id_text"),
        ("sync_id", ["org_id", "sync_id"], "sync_id_text"),
        ("sync_run_id", ["org_id", "sync_id", "sync_run_id"], "sync_run_id_text"),
    ]
    result = folders
    names = []
    for label, ids, text in levels:
        named = folders.filter(F.col(text).isNotNull())
        for key in ids:
            named = named.filter(F.col(key).isNotNull())
        conflicts = (
            named.groupBy("area", *ids)
            .agg(F.array_sort(F.collect_set(text)).alias("_names"))
            .filter(F.size("_names") > 1)
            .select(
                "area",
                *ids,
                F.concat(
                    F.size("_names").cast("string"),
                    F.lit(f" folders name {label} "),
                    F.col(ids[-1]).cast("string"),
                    F.lit(" ('"),
                    F.array_join("_names", "', '"),
                    F.lit("'): neither is loaded"),
                ).alias(f"_{label}_conflict"),
            )
        )
        result = result.join(F.broadcast(conflicts), ["area", *ids], "left")
        names.append(F.col(f"_{label}_conflict"))
    return result.select("area", *texts, F.coalesce(*names).alias("folder_conflict"))


def classify_files(listing: DataFrame) -> DataFrame:
    """Parse ids, file kind and problems from the path of every listed file.

    `relative_path` is what follows the last `/<area>/` in the path; in the run area a loadable
    file sits at org/sync/run/file, in the fact area at org/file. A file with a hidden name on
    its path (`hidden_depth`: the position of the first name starting with `_` or `.`) is of
    kind `hidden`: ignored, reported per `ignored_folder` (the folder above that name).
    """
    relative = F.when(
        F.col("area") == F.lit(RUN_AREA),
        F.regexp_extract(F.col("path"), rf"^.*/{RUN_AREA}/(.*)$", 1),
    ).otherwise(F.regexp_extract(F.col("path"), rf"^.*/{FACT_AREA}/(.*)$", 1))
    parts = F.split(F.col("relative_path"), "/")
    depth = F.size(parts)
    file_name = F.element_at(parts, -1)
    is_runs = F.col("area") == F.lit(RUN_AREA)
    expected_depth = F.when(is_runs, F.lit(4)).otherwise(F.lit(2))
    hidden_depth = F.array_position(F.transform(parts, lambda name: name.rlike(HIDDEN_NAME)), True)
    area_prefix = F.expr("substring(path, 1, length(path) - length(relative_path) - 1)")

    def folder(index: int) -> F.Column:
        return F.when(depth > index, F.element_at(parts, index))

    org_text = folder(1)
    sync_text = F.when(is_runs, folder(2))
    run_text = F.when(is_runs, folder(3))

    def as_id(text: F.Column) -> F.Column:
        return F.when(text.rlike(INTEGER_NAME), text.cast("bigint"))

    batch_match = F.col("file_name").rlike(BATCH_FILE)
    kind = (
        F.when(F.col("hidden_depth") > 0, F.lit("hidden"))
        .when(is_runs & (F.col("file_name") == "metadata.json"), F.lit("run_metadata"))
        .when(is_runs & batch_match, F.lit("record_batch"))
        .when(~is_runs & F.col("file_name").isin(*FACT_FILES), F.lit("fact"))
        .otherwise(F.lit("stray"))
    )

    def bad_folder(label: str, text: F.Column) -> F.Column:
        return F.when(
            text.isNotNull() & ~text.rlike(INTEGER_NAME),
            F.concat(F.lit(f"{label} folder name is not an integer: '"), text, F.lit("'")),
        )

    problem = F.when(
        F.col("file_kind") != "hidden",
        F.coalesce(
            F.when(
                F.col("depth") != F.col("expected_depth"),
                F.concat(
                    F.lit("file at the wrong folder depth (expected "),
                    F.when(
                        is_runs, F.lit(f"{RUN_AREA}/<org_id>/<sync_id>/<sync_run_id>/<file>")
                    ).otherwise(F.lit(f"{FACT_AREA}/<org_id>/<file>")),
                    F.lit(")"),
                ),
            ),
            bad_folder("org_id", F.col("org_id_text")),
            bad_folder("sync_id", F.col("sync_id_text")),
            bad_folder("sync_run_id", F.col("sync_run_id_text")),
            F.when(
                F.col("file_kind") == "stray",
                F.when(is_runs, F.lit(STRAY_RUN_FILE)).otherwise(
                    F.lit("stray file: not one of " + ", ".join(FACT_FILES))
                ),
            ),
            F.col("folder_conflict"),
        ),
    )
    named = (
        listing.withColumn("relative_path", relative)
        .withColumn("file_name", file_name)
        .withColumn("depth", depth)
        .withColumn("expected_depth", expected_depth)
        .withColumn("hidden_depth", hidden_depth.cast("int"))
        .withColumn("org_id_text", org_text)
        .withColumn("sync_id_text", sync_text)
        .withColumn("sync_run_id_text", run_text)
        .withColumn("org_id", as_id(F.col("org_id_text")))
        .withColumn("sync_id", as_id(F.col("sync_id_text")))
        .withColumn("sync_run_id", as_id(F.col("sync_run_id_text")))
    )
    conflicts = folder_conflicts(named.filter(F.col("hidden_depth") == 0)).alias("conflict")
    keys = ["area", "org_id_text", "sync_id_text", "sync_run_id_text"]
    named = (
        named.alias("file")
        .join(
            conflicts,
            [F.col(f"file.{key}").eqNullSafe(F.col(f"conflict.{key}")) for key in keys],
            "left",
        )
        .select("file.*", "conflict.folder_conflict")
    )
    return (
        named.withColumn("file_kind", kind)
        .withColumn(
            "batch_type",
            F.when(
                F.col("file_kind") == "record_batch", F.regexp_extract("file_name", BATCH_FILE, 1)
            ),
        )
        .withColumn(
            "batch_number",
            F.when(
                (F.col("file_kind") == "record_batch")
                & (F.regexp_extract("file_name", BATCH_FILE, 3) != ""),
                F.regexp_extract("file_name", BATCH_FILE, 3).cast("int"),
            ),
        )
        .withColumn("problem", problem)
        .withColumn(
            # The run folder (org folder for fact files) holding a well-placed file, as listed.
            "folder_path",
            F.when(
                F.col("depth") == F.col("expected_depth"),
                F.concat(
                    F.expr("substring(path, 1, length(path) - length(relative_path))"),
                    F.array_join(F.slice(parts, 1, F.col("expected_depth") - 1), "/"),
                ),
            ),
        )
        .withColumn(
            # Hidden files: the folder above the first hidden name, and the path below it.
            "ignored_folder",
            F.when(F.col("hidden_depth") == 1, area_prefix).when(
                F.col("hidden_depth") > 1,
                F.concat(
                    area_prefix,
                    F.lit("/"),
                    F.array_join(F.slice(parts, 1, F.col("hidden_depth") - 1), "/"),
                ),
            ),
        )
        .withColumn(
            "ignored_name",
            F.when(
                F.col("hidden_depth") > 0,
                F.array_join(
                    F.slice(parts, F.col("hidden_depth"), depth - F.col("hidden_depth") + 1),
                    "/",
                ),
            ),
        )
        .drop("expected_depth")
    )


LAKE_FILE_COLUMNS = [
    "path",
    "area",
    "relative_path",
    "folder_path",
    "file_name",
    "depth",
    "org_id_text",
    "sync_id_text",
    "sync_run_id_text",
    "org_id",
    "sync_id",
    "sync_run_id",
    "file_kind",
    "batch_type",
    "batch_number",
    "length",
    "modification_time",
    "problem",
    "folder_conflict",
    "hidden_depth",
    "ignored_folder",
    "ignored_name",
]


def list_lake(session: SparkSession, raw_root: str) -> DataFrame:
    """path/length/modification_time/area of every file of both areas, not classified."""
    return list_area(session, raw_root, RUN_AREA).unionByName(
        list_area(session, raw_root, FACT_AREA)
    )


def lake_files(session: SparkSession, raw_root: str) -> DataFrame:
    """`int_sync_logs__lake_files`: every file of both areas, classified."""
    return classify_files(list_lake(session, raw_root)).select(*LAKE_FILE_COLUMNS)


def listing_fingerprint(listing: DataFrame, salt: str = "") -> str:
    """sha256 of every listed file's path, size and modification time (in path order), and of
    `salt`: equal fingerprints mean the same lake listing, classified by the same rules."""
    entries = listing.select(
        F.concat_ws(
            "|",
            "path",
            F.col("length").cast("string"),
            F.unix_micros("modification_time").cast("string"),
        ).alias("entry")
    )
    digest = hashlib.sha256(salt.encode())
    for row in entries.orderBy("entry").toLocalIterator():
        digest.update(b"\n" + row["entry"].encode())
    return digest.hexdigest()
