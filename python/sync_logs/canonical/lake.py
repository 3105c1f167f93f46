"""Lake listing: every file under the lake root, with names, sizes and times, never contents.

Every file is listed, hidden names (`_SUCCESS`, `.crc` checksums, `_temporary/`) and empty files
included: hidden files are never loaded, and are reported as ignored, grouped by the folder that
holds them; empty files are reported where they lie. A local lake (a plain path or a file: URI,
the embedded default) is listed with `os.walk` on the driver; any other URI (s3a://, abfss://,
gs://, dbfs:/) with Hadoop's FileSystem API (`listFiles`, recursive) through the session's JVM,
which gives the same rows for the same lake. Only where the session has no JVM (Spark Connect,
Databricks shared clusters) is it listed by Spark's `binaryFile` source, which skips hidden names
and empty files: they are not reported there; its rows are collected (`listed_entries`).

Everything after the listing happens on the driver, in plain Python over its (path, length,
modification ms) tuples, a few thousand of them: the listing's fingerprint
(`entries_fingerprint`) and the classification of each file (`classify`: ids, kind, batch,
problems, folder conflicts, hidden names). Spark gets only a local DataFrame of the result
(`lake_file_frame`). The rules are the ones Spark applied when it classified the listing, and
give the same rows: the regexes below are matched as Java's engine matches them (`java_regex`),
strings compare in UTF-8 byte order, times are whole microseconds.

Folder names must be decimal integers. Two run folders naming the same run (`880117` and
`0880117`, or `101/9099` and `0101/9099`: the same org, sync and run integers) conflict, and
neither is loaded; two fact folders naming the same org likewise. Folders that name the same
sync or org but different runs (`101/9001` and `0101/9099`) do not: each run is loaded.
"""

import hashlib
import os
import re
from collections.abc import Iterable
from typing import NamedTuple

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql import types as T
from pyspark.sql.utils import AnalysisException

from sync_logs.canonical.local_rows import local_frame

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
        return "/" + location[len("file:") :].lstrip("/")
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
        entries.append((status.getPath().toString(), status.getLen(), status.getModificationTime()))
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
        return local_frame(session, [], RAW_LISTING_SCHEMA)
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
        listing = local_frame(session, entries, RAW_LISTING_SCHEMA)
    return listing.select(
        "path",
        "length",
        F.timestamp_millis("modification_ms").alias("modification_time"),
        F.lit(area).alias("area"),
    )


def java_regex(pattern: str) -> re.Pattern:
    """`pattern` compiled to match in Python as Java's regex engine (Spark's `rlike`,
    `regexp_extract`) matches it: `.` matches no line terminator (\\n, \\r, U+0085, U+2028,
    U+2029), `$` matches at the end or before a final line terminator. Other constructs of our
    patterns (`^`, classes, groups, lazy and bounded repeats) mean the same in both."""
    translated, in_class, escaped = [], False, False
    for char in pattern:
        if escaped:
            translated.append(char)
            escaped = False
        elif char == "\\":
            translated.append(char)
            escaped = True
        elif in_class:
            translated.append(char)
            in_class = char != "]"
        elif char == "[":
            translated.append(char)
            in_class = True
        elif char == ".":
            translated.append(JAVA_DOT)
        elif char == "$":
            translated.append(JAVA_END)
        else:
            translated.append(char)
    return re.compile("".join(translated))


# Java's line terminators, which its `.` does not match and before the last of which `$` matches
# (not between the \r and \n of a final \r\n).
JAVA_DOT = "[^\n\r\u0085\u2028\u2029]"
JAVA_END = "(?:\\Z|(?=(?:\r\n|[\r\u0085\u2028\u2029]|(?<!\r)\n)\\Z))"
INTEGER_PATTERN = java_regex(INTEGER_NAME)
BATCH_PATTERN = java_regex(BATCH_FILE)
HIDDEN_PATTERN = java_regex(HIDDEN_NAME)
RELATIVE_PATTERNS = {area: java_regex(rf"^.*/{area}/(.*)$") for area in AREAS}


class LakeFile(NamedTuple):
    """One listed file, classified (`classify`): the columns of `int_sync_logs__lake_files`,
    its modification time in microseconds since the epoch (`lake_file_frame` makes it a
    timestamp)."""

    path: str
    area: str
    relative_path: str
    folder_path: str | None
    file_name: str
    depth: int
    org_id_text: str | None
    sync_id_text: str | None
    sync_run_id_text: str | None
    org_id: int | None
    sync_id: int | None
    sync_run_id: int | None
    file_kind: str
    batch_type: str | None
    batch_number: int | None
    length: int
    modification_time: int
    problem: str | None
    folder_conflict: str | None
    hidden_depth: int
    ignored_folder: str | None
    ignored_name: str | None


LAKE_FILE_COLUMNS = list(LakeFile._fields)
# The columns that are never null (as Spark typed them when it classified the listing).
NOT_NULL = {"area", "file_kind"}
# `LakeFile` as Spark holds it, the time as microseconds (`lake_file_frame` converts it).
LAKE_FILE_TYPE = T.StructType(
    [
        T.StructField(name, T.StringType() if kind is str else kind, name not in NOT_NULL)
        for name, kind in [
            ("path", str),
            ("area", str),
            ("relative_path", str),
            ("folder_path", str),
            ("file_name", str),
            ("depth", T.IntegerType()),
            ("org_id_text", str),
            ("sync_id_text", str),
            ("sync_run_id_text", str),
            ("org_id", T.LongType()),
            ("sync_id", T.LongType()),
            ("sync_run_id", T.LongType()),
            ("file_kind", str),
            ("batch_type", str),
            ("batch_number", T.IntegerType()),
            ("length", T.LongType()),
            ("modification_time", T.LongType()),
            ("problem", str),
            ("folder_conflict", str),
            ("hidden_depth", T.IntegerType()),
            ("ignored_folder", str),
            ("ignored_name", str),
        ]
    ]
)


def search(pattern: re.Pattern, text: str | None) -> re.Match | None:
    """Spark's `rlike`: a search, not a full match; no match on null."""
    return None if text is None else pattern.search(text)


def extract(pattern: re.Pattern, text: str, group: int) -> str:
    """Spark's `regexp_extract`: the group of the first match, "" where none."""
    found = pattern.search(text)
    return (found.group(group) or "") if found else ""


def as_id(text: str | None) -> int | None:
    """The integer a folder name holds (INTEGER_NAME: at most 18 digits, so it fits a bigint)."""
    return int(text) if search(INTEGER_PATTERN, text) else None


def prefix(text: str, length: int) -> str:
    """Spark's `substring(text, 1, length)`: "" for a length below 1."""
    return text[: max(length, 0)]


def utf8(text: str) -> bytes:
    """The sort key of Spark's string order (UTF-8 bytes)."""
    return text.encode()


class NamedPath(NamedTuple):
    """A listed file and what its path names (`name_path`), its folder conflict not yet known."""

    area: str
    path: str
    length: int
    micros: int
    relative_path: str
    parts: list[str]
    hidden_depth: int
    # The org, sync and run folder names (null where the path has none) and their integers.
    texts: tuple[str | None, str | None, str | None]
    ids: tuple[int | None, int | None, int | None]


def name_path(area: str, path: str, length: int, micros: int) -> NamedPath:
    is_runs = area == RUN_AREA
    relative = extract(RELATIVE_PATTERNS[RUN_AREA if is_runs else FACT_AREA], path, 1)
    parts = relative.split("/")
    depth = len(parts)
    hidden = [index for index, name in enumerate(parts, 1) if HIDDEN_PATTERN.search(name)]
    texts = (
        parts[0] if depth > 1 else None,
        parts[1] if is_runs and depth > 2 else None,
        parts[2] if is_runs and depth > 3 else None,
    )
    ids = tuple(as_id(text) for text in texts)
    return NamedPath(
        area, path, length, micros, relative, parts, hidden[0] if hidden else 0, texts, ids
    )


def folder_conflicts(files: list[NamedPath]) -> dict[tuple, str]:
    """Per folder named by (area, its org, sync and run texts), the conflict when another
    folder names the same run; of the `files` that are not hidden. A run folder conflicts when
    another one names the same org, sync and run integers (`1/44/880117` and `1/44/0880117`, or
    `1/101/9099` and `1/0101/9099`), a fact folder when another one names the same org: the
    writer's meaning is ambiguous there alone. Folders naming one sync or org but different runs
    do not conflict."""
    folders = {(file.area, file.texts, file.ids) for file in files if not file.hidden_depth}
    names: dict[tuple, set[str]] = {}
    for area, (org_text, sync_text, run_text), (org_id, sync_id, run_id) in folders:
        is_run_folder = area == RUN_AREA and run_id is not None and sync_id is not None
        is_fact_folder = area == FACT_AREA and sync_text is None and run_text is None
        if org_id is not None and (is_run_folder or is_fact_folder):
            name = "/".join(text for text in (org_text, sync_text, run_text) if text is not None)
            names.setdefault((area, org_id, sync_id, run_id), set()).add(name)
    conflicts = {}
    for (area, org_id, sync_id, run_id), found in names.items():
        if len(found) > 1:
            label = (
                f"org_id {org_id}, sync_id {sync_id}, sync_run_id {run_id}"
                if area == RUN_AREA
                else f"org_id {org_id}"
            )
            shown = "', '".join(sorted(found, key=utf8))
            conflicts[(area, org_id, sync_id, run_id)] = (
                f"{len(found)} folders name {label} ('{shown}'): neither is loaded"
            )
    return {(area, *texts): conflicts.get((area, *ids)) for area, texts, ids in folders}


def classify(listing: Iterable[tuple]) -> list[LakeFile]:
    """Parse ids, file kind and problems from the path of every listed file: `listing` holds
    (area, path, length, modification micros) per file.

    `relative_path` is what follows the last `/<area>/` in the path; in the run area a loadable
    file sits at org/sync/run/file, in the fact area at org/file. A file with a hidden name on
    its path (`hidden_depth`: the position of the first name starting with `_` or `.`) is of
    kind `hidden`: ignored, reported per `ignored_folder` (the folder above that name).
    """
    named = [name_path(*file) for file in listing]
    conflicts = folder_conflicts(named)
    return [classified(file, conflicts.get((file.area, *file.texts))) for file in named]


def classified(file: NamedPath, folder_conflict: str | None) -> LakeFile:
    """The `LakeFile` of a file whose path is named, with its folder's conflict (`classify`)."""
    is_runs = file.area == RUN_AREA
    parts, hidden_depth = file.parts, file.hidden_depth
    depth = len(parts)
    expected_depth = 4 if is_runs else 2
    file_name = parts[-1]
    batch = BATCH_PATTERN.search(file_name)
    if hidden_depth > 0:
        kind = "hidden"
    elif is_runs and file_name == "metadata.json":
        kind = "run_metadata"
    elif is_runs and batch:
        kind = "record_batch"
    elif not is_runs and file_name in FACT_FILES:
        kind = "fact"
    else:
        kind = "stray"
    number = batch.group(3) if batch and kind == "record_batch" else None
    area_prefix = prefix(file.path, len(file.path) - len(file.relative_path) - 1)
    return LakeFile(
        path=file.path,
        area=file.area,
        relative_path=file.relative_path,
        folder_path=(
            prefix(file.path, len(file.path) - len(file.relative_path))
            + "/".join(parts[: expected_depth - 1])
            if depth == expected_depth
            else None
        ),
        file_name=file_name,
        depth=depth,
        org_id_text=file.texts[0],
        sync_id_text=file.texts[1],
        sync_run_id_text=file.texts[2],
        org_id=file.ids[0],
        sync_id=file.ids[1],
        sync_run_id=file.ids[2],
        file_kind=kind,
        batch_type=batch.group(1) if kind == "record_batch" else None,
        batch_number=int(number) if number else None,
        length=file.length,
        modification_time=file.micros,
        problem=(
            None
            if kind == "hidden"
            else problem_of(is_runs, depth, expected_depth, file.texts, kind, folder_conflict)
        ),
        folder_conflict=folder_conflict,
        hidden_depth=hidden_depth,
        ignored_folder=(
            area_prefix + "".join("/" + name for name in parts[: hidden_depth - 1])
            if hidden_depth > 0
            else None
        ),
        ignored_name="/".join(parts[hidden_depth - 1 :]) if hidden_depth > 0 else None,
    )


def problem_of(
    is_runs: bool,
    depth: int,
    expected_depth: int,
    texts: tuple[str | None, ...],
    kind: str,
    folder_conflict: str | None,
) -> str | None:
    """Why a file that is not hidden is not loaded, the first that applies; None when it is."""
    if depth != expected_depth:
        expected = (
            f"{RUN_AREA}/<org_id>/<sync_id>/<sync_run_id>/<file>"
            if is_runs
            else f"{FACT_AREA}/<org_id>/<file>"
        )
        return f"file at the wrong folder depth (expected {expected})"
    for label, text in zip(["org_id", "sync_id", "sync_run_id"], texts, strict=True):
        if text is not None and not INTEGER_PATTERN.search(text):
            return f"{label} folder name is not an integer: '{text}'"
    if kind == "stray":
        return STRAY_RUN_FILE if is_runs else "stray file: not one of " + ", ".join(FACT_FILES)
    return folder_conflict


def lake_file_frame(session: SparkSession, files: list[LakeFile]) -> DataFrame:
    """`files` as a local DataFrame (`int_sync_logs__lake_files`' columns). Times travel as
    microseconds: a Python datetime is local wall time, ambiguous where clocks go back."""
    frame = local_frame(session, files, LAKE_FILE_TYPE)
    return frame.withColumn("modification_time", F.timestamp_micros("modification_time"))


def classify_files(listing: DataFrame) -> DataFrame:
    """`classify` of a listing DataFrame (path, length, modification_time, area), collected: a
    listing is a few thousand small rows."""
    rows = listing.select(
        "area", "path", "length", F.unix_micros("modification_time").alias("micros")
    ).collect()
    return lake_file_frame(listing.sparkSession, classify([tuple(row) for row in rows]))


def list_lake(
    session: SparkSession, raw_root: str, entries: LakeEntries | None = None
) -> DataFrame:
    """path/length/modification_time/area of every file of both areas, not classified; of the
    `entries` listed already (`lake_entries`) when given."""
    if entries is None:
        entries = lake_entries(session, raw_root)
    run_files, fact_files = (list_area(session, raw_root, area, entries[area]) for area in AREAS)
    return run_files.unionByName(fact_files)


def listed_entries(
    session: SparkSession, raw_root: str, entries: LakeEntries | None = None
) -> dict[str, list[tuple]]:
    """Per area, (path, length, modification ms) of its files: as listed on the driver
    (`lake_entries`, or the `entries` given), else its `binary_file_listing`, collected (a
    listing is a few thousand small rows)."""
    if entries is None:
        entries = lake_entries(session, raw_root)
    return {
        area: (
            listed
            if listed is not None
            else [
                tuple(row)
                for row in binary_file_listing(session, area_location(raw_root, area)).collect()
            ]
        )
        for area, listed in entries.items()
    }


def classify_entries(entries: dict[str, list[tuple]]) -> list[LakeFile]:
    """`classify` of the files `listed_entries` lists."""
    return classify(
        (area, path, length, ms * 1000) for area in AREAS for path, length, ms in entries[area]
    )


def lake_files(session: SparkSession, raw_root: str) -> DataFrame:
    """`int_sync_logs__lake_files`: every file of both areas, classified on the driver."""
    return lake_file_frame(session, classify_entries(listed_entries(session, raw_root)))


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
