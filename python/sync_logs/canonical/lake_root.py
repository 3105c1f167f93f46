"""The lake root, var `sync_logs_raw_root`: a build fails before reading anything when the root
is not a lake, with a message that names the var and the fix.

A lake is a folder (or URI) holding `sync_tracking_datasets/`, the run area; `metadata/` is
optional. An empty run area is a valid empty lake. A root whose run area is gone while the
warehouse holds run folders of earlier builds is a lake whose runs were all removed (an object
store keeps no empty folder): it builds, and the runs keep their history.

Whether a folder exists is asked of the local filesystem for a local root, and of Spark's file
source (the Hadoop filesystem of the URI's scheme: s3a://, abfss://, gs://, dbfs:/) for any
other. No JVM access, as in `lake`.
"""

import os

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql.utils import AnalysisException

from sync_logs.canonical.lake import AREAS, RUN_AREA, LakeEntries, driver_entries, local_folder

SET_IT = (
    "set var sync_logs_raw_root to the folder or URI of the lake, the one that holds "
    f"{RUN_AREA}/ (in your dbt_project.yml `vars:`, or `--vars '{{sync_logs_raw_root: s3a://bucket/lake}}'`)"
)


def lake_root(raw_root: str | None) -> str:
    """`sync_logs_raw_root` as the models' config renders it, or ValueError when it is empty."""
    root = (raw_root or "").strip()
    if not root:
        raise ValueError(f"var sync_logs_raw_root is empty: {SET_IT}")
    return root


def folder_exists(session: SparkSession, location: str) -> bool:
    """Whether `location` is a folder: the local filesystem's answer, or Spark's for a URI
    (whose listing of `location` it costs: use it for folders that are small or missing)."""
    folder = local_folder(location)
    if folder is not None:
        return os.path.isdir(folder)
    try:
        reader = session.read.format("binaryFile").option("recursiveFileLookup", "true")
        # `columns` makes a lazy reader (Spark Connect) resolve the path as well.
        return bool(reader.load(location).columns)
    except AnalysisException:  # PATH_NOT_FOUND
        return False


def has_run_folders(manifest: DataFrame | None) -> bool:
    """Whether an earlier build's run manifest lists run folders."""
    if manifest is None:
        return False
    return not manifest.filter(F.col("folder_key").startswith(f"{RUN_AREA}/")).isEmpty()


def lists_files(
    listing: DataFrame | None, entries: LakeEntries | None, areas: tuple[str, ...] = AREAS
) -> bool:
    """Whether the lake `listing` holds files of `areas`: asked of its `entries` where each
    area was listed on the driver (or collected: `lake.listed_entries`), else of `listing` (a
    Spark job)."""
    rows = driver_entries(entries, areas)
    if rows is None:
        return not listing.filter(F.col("area").isin(*areas)).isEmpty()
    return bool(rows)


def require_lake(
    session: SparkSession,
    root: str,
    listing: DataFrame | None,
    previous: DataFrame | None,
    entries: LakeEntries | None = None,
) -> None:
    """Raise ValueError, naming sync_logs_raw_root and the fix, unless `root` is a lake: its
    `listing` (`lake.list_lake`; its `entries` alone when each area is listed there) holds run
    files, its run area exists (empty: a lake without runs), or the warehouse's manifest
    (`previous`) holds runs whose folders have all left the lake.
    Tells a root that does not exist (a URI's: nothing listed under it) from one without the
    run area."""
    run_area = f"{root.rstrip('/')}/{RUN_AREA}"
    if lists_files(listing, entries, (RUN_AREA,)):
        return
    if folder_exists(session, run_area) or has_run_folders(previous):
        return
    local = local_folder(root)
    shown = f"'{root}'" + (f" ({local})" if local is not None and local != root else "")
    # A URI's root is known by what is listed under it (an object store has no empty folder):
    # listing it whole would read a bucket that holds more than the lake.
    if not (os.path.isdir(local) if local is not None else lists_files(listing, entries)):
        raise ValueError(
            f"var sync_logs_raw_root is {shown}, which does not exist where the models run: "
            f"{SET_IT}. A relative path is relative to the folder dbt runs in."
        )
    parent = root.rstrip("/").rpartition("/")[0]
    hint = (
        f" sync_logs_raw_root names the run area itself: use its parent, '{parent}'."
        if root.rstrip("/").endswith(f"/{RUN_AREA}")
        else ""
    )
    raise ValueError(
        f"var sync_logs_raw_root is {shown}, which holds no {RUN_AREA}/ folder: {SET_IT}, not a "
        f"folder above or below it. A lake without runs yet is an empty {RUN_AREA}/ folder.{hint}"
    )
