"""Lake listing: every file under the lake root, with names, sizes and times, never contents.

Every file is listed, hidden names (`_SUCCESS`, `.crc` checksums, `_temporary/`) and empty files
included: hidden files are never loaded, and are reported as ignored, grouped by the folder that
holds them; empty files are reported where they lie. A local lake (a plain path or a file: URI,
the embedded default) is listed with `os.walk` on the driver; any other URI (s3a://, abfss://,
gs://, dbfs:/) with Hadoop's FileSystem API (`listFiles`, recursive) through the session's JVM,
which gives the same rows for the same lake. Only where the session has no JVM (Spark Connect,
Databricks shared clusters) is it listed by Spark's `binaryFile` source, which skips hidden names
and empty files: they are not reported there. The rows listed on the driver are kept
(`lake_entries`): the listing's fingerprint is taken from them without a Spark job.

Folder names must be decimal integers. Two run folders naming the same run (`880117` and
`0880117`, or `101/9099` and `0101/9099`: the same org, sync and run integers) conflict, and
neither is loaded; two fact folders naming the same org likewise. Folders that name the same
sync or org but different runs (`101/9001` and `0101/9099`) do not: each run is loaded.
"""

import hashlib
import os
import re
from collections.abc import Iterable

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql.utils import AnalysisException

RUN_AREA = "sync_tracking_datasets"
FACT_AREA = "metadata"
AREAS = (RUN_AREA, FACT_AREA)
FACT_FILES = ("source_objects.parquet", "destinations.parquet", "destination_objects.parquet")
# An id folder holds a decimal integer that fits a bigint.
INTEGER_NAME = r"^[0-9]{1,18}$"
# <batch_type>.<batch_number>.parquet, or the older <batch_type>.parquet.
BATCH_FILE = r"^(.+?)(\.([0-9]{1,9}))?\.parquet$"
STRAY_RUN_FILE = "stray file: neither metadata.json nor <batch_type>.<batch_number>.parquet"
RAW_LISTING_SCHEMA = "path string, length bigint, modification_ms bigint"
# A hidden name, by the convention every Spark and Hadoop reader follows.
HIDDEN_NAME = r"^[_.]"
# Per area, (path, length, modification ms) of its files as listed on the driver (`lake_entries`);
# None for an area that only `binary_file_listing` lists.
LakeEntries = dict[str, list[tuple] | None]


def local_folder(location: str) -> str | None:
    """The local folder a plain path or a file: URI names; None for any other URI."""
    if location.startswith("file:"):
        return "/" + location[len("file:"):].lstrip("/")
    if "://" in location or re.match(r"^[A-Za-z][A-Za-z0-9+.-]*:", location):
        return None
    return os.path.abspath(location)


def local_listing(location: str) -> list[tuple] | None:
    """(path, length, modification ms) of every file under a local `location` (a plain path or
    a file: URI), hidden names and empty files included; [] when the folder does not exist;
    None for any other URI (object stores), which `hadoop_listing` serves."""
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
            entries.append((f"file:{path}", status.st_size, status.st_mtime_ns // 1_000_000))
    return entries


def hadoop_filesystem(session: SparkSession, location: str):
    """(Hadoop FileSystem, Path) of `location` through the session's JVM; None where the session
    has none (Spark Connect) or may not use it (Databricks shared clusters). A checksummed
    filesystem (the local one) gives its raw filesystem, which does not hide `.crc` files."""
    jvm = getattr(session, "_jvm", None)
    if jvm is None:
        return None
    try:
        path = jvm.org.apache.hadoop.fs.Path(location)
        filesystem = path.getFileSystem(session._jsc.hadoopConfiguration())
        checksummed = jvm.java.lang.Class.forName("org.apache.hadoop.fs.ChecksumFileSystem")
        if checksummed.isInstance(filesystem):
            filesystem = filesystem.getRawFileSystem()
    except Exception:  # py4j's errors: a JVM that refuses these classes (shared clusters)
        return None
    return filesystem, path


def hadoop_listing(session: SparkSession, location: str) -> list[tuple] | None:
    """(path, length, modification ms) of every file under `location`, listed with Hadoop's
    FileSystem API (`listFiles`, recursive): hidden names and empty files included, as
    `local_listing` lists them; [] when the folder does not exist; None without a JVM."""
    found = hadoop_filesystem(session, location)
    if found is None:
        return None
    filesystem, path = found
    if not filesystem.exists(path):
        return []
    entries = []
    files = filesystem.listFiles(path, True)
    while files.hasNext():
        status = files.next()
        entries.append(
            (status.getPath().toString(), status.getLen(), status.getModificationTime())
        )
    return entries


def binary_file_listing(session: SparkSession, location: str) -> DataFrame:
    """The listing of Spark's `binaryFile` source, for sessions without a JVM: it skips hidden
    names and empty files."""
    try:
        listing = (
            session.read.format("binaryFile").option("recursiveFileLookup", "true").load(location)
        )
    except AnalysisException:
        # The folder does not exist (yet): a lake without runs or without fact files.
        return session.createDataFrame([], RAW_LISTING_SCHEMA)
    return listing.select(
        F.col("path"),
        F.col("length").cast("bigint").alias("length"),
        F.unix_millis("modificationTime").alias("modification_ms"),
    )


def area_location(raw_root: str, area: str) -> str:
    return raw_root.rstrip("/") + "/" + area


def driver_listing(session: SparkSession, location: str) -> list[tuple] | None:
    """`local_listing` of `location`, else its `hadoop_listing`; None where neither can list it
    (a session without a JVM: `binary_file_listing` lists it)."""
    entries = local_listing(location)
    if entries is None:
        entries = hadoop_listing(session, location)
    return entries


def lake_entries(session: SparkSession, raw_root: str) -> LakeEntries:
    """Per area, its `driver_listing`."""
    return {area: driver_listing(session, area_location(raw_root, area)) for area in AREAS}


def list_area(
    session: SparkSession, raw_root: str, area: str, entries: list[tuple] | None
) -> DataFrame:
    """path/length/modification_time/area of every file under <raw_root>/<area> (empty if
    absent): its `entries` as listed on the driver, or its `binary_file_listing` when None."""
    if entries is None:
        listing = binary_file_listing(session, area_location(raw_root, area))
    else:
        listing = session.createDataFrame(entries, RAW_LISTING_SCHEMA)
    return listing.select(
        "path",
        "length",
        F.timestamp_millis("modification_ms").alias("modification_time"),
        F.lit(area).alias("area"),
    )


def folder_conflicts(files: DataFrame) -> DataFrame:
    """Per folder named by its texts: the conflict when another folder names the same run.

    `files` holds area, the *_text and id columns; the result one row per distinct folder
    triple with `folder_conflict` (null when none). A run folder conflicts when another one
    names the same org, sync and run integers (`1/44/880117` and `1/44/0880117`, or
    `1/101/9099` and `1/0101/9099`), a fact folder when another one names the same org: the
    writer's meaning is ambiguous there alone. Folders naming one sync or org but different
    runs do not conflict.
    """
    texts = ["org_id_text", "sync_id_text", "sync_run_id_text"]
    folders = files.select("area", *texts, "org_id", "sync_id", "sync_run_id").distinct()
    is_run_folder = (F.col("area") == RUN_AREA) & F.col("sync_run_id").isNotNull()
    is_fact_folder = (F.col("area") == FACT_AREA) & F.col("org_text_only")
    named = folders.withColumn(
        "org_text_only", F.col("sync_id_text").isNull() & F.col("sync_run_id_text").isNull()
    ).filter(
        F.col("org_id").isNotNull()
        & ((is_run_folder & F.col("sync_id").isNotNull()) | is_fact_folder)
    )
    ids = ["area", "org_id", "sync_id", "sync_run_id"]
    name = F.concat_ws("/", *[F.col(text) for text in texts])
    labels = F.when(
        F.col("area") == RUN_AREA,
        F.format_string("org_id %d, sync_id %d, sync_run_id %d", *ids[1:]),
    ).otherwise(F.format_string("org_id %d", "org_id"))
    conflicts = (
        named.groupBy(*[F.col(key) for key in ids])
        .agg(F.array_sort(F.collect_set(name)).alias("_names"))
        .filter(F.size("_names") > 1)
        .select(
            *ids,
            F.concat(
                F.size("_names").cast("string"),
                F.lit(" folders name "),
                labels,
                F.lit(" ('"),
                F.array_join("_names", "', '"),
                F.lit("'): neither is loaded"),
            ).alias("folder_conflict"),
        )
    )
    keys = [F.col(f"folder.{key}").eqNullSafe(F.col(f"conflict.{key}")) for key in ids]
    return (
        folders.alias("folder")
        .join(F.broadcast(conflicts).alias("conflict"), keys, "left")
        .select(*[F.col(f"folder.{key}") for key in ["area", *texts]], "conflict.folder_conflict")
    )


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


def list_lake(
    session: SparkSession, raw_root: str, entries: LakeEntries | None = None
) -> DataFrame:
    """path/length/modification_time/area of every file of both areas, not classified; of the
    `entries` listed already (`lake_entries`) when given."""
    if entries is None:
        entries = lake_entries(session, raw_root)
    run_files, fact_files = (list_area(session, raw_root, area, entries[area]) for area in AREAS)
    return run_files.unionByName(fact_files)


def lake_files(session: SparkSession, raw_root: str) -> DataFrame:
    """`int_sync_logs__lake_files`: every file of both areas, classified."""
    return classify_files(list_lake(session, raw_root)).select(*LAKE_FILE_COLUMNS)


def driver_entries(
    entries: LakeEntries | None, areas: tuple[str, ...] = AREAS
) -> list[tuple] | None:
    """The `entries` of `areas` in one list; None unless each area was listed on the driver."""
    if entries is None or any(entries[area] is None for area in areas):
        return None
    return [entry for area in areas for entry in entries[area]]


def entries_fingerprint(entries: Iterable[tuple], salt: str = "") -> str:
    """sha256 of `salt` and, per (path, length, modification ms) entry, of a newline and
    `path|length|modification micros`, in UTF-8 byte order (Spark's string order): equal
    fingerprints mean the same lake listing, classified by the same rules."""
    lines = sorted(f"{path}|{length}|{ms * 1000}".encode() for path, length, ms in entries)
    digest = hashlib.sha256(salt.encode())
    for line in lines:
        digest.update(b"\n" + line)
    return digest.hexdigest()


def listing_fingerprint(
    listing: DataFrame, salt: str = "", entries: LakeEntries | None = None
) -> str:
    """`entries_fingerprint` of a `list_lake` listing: of its `entries` when each area was
    listed on the driver, else of its rows, collected (a Spark job)."""
    rows = driver_entries(entries)
    if rows is None:
        rows = listing.select(
            "path", "length", F.unix_millis("modification_time").alias("modification_ms")
        ).collect()
    return entries_fingerprint(rows, salt)
