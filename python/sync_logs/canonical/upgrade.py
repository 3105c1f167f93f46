"""Tables an older release built, read in this release's layout (the upgrade without
`--full-refresh`; the SQL side is the on-run-start macro `sync_logs.upgrade_canonical_tables`).

Release 0.1.0's run manifest holds run folders only, without `folder_key`, listings or
inspected record batches (those were the table `int_sync_logs__record_files`). Read in the
current layout, every folder counts as listed differently and every run's loadable files as
changed: the next build lists the lake again, parses and inspects each run folder still there
and reloads it, as a first build would. Runs whose folder has left the lake keep their row,
with the record batches 0.1.0 inspected, and their rows in the public tables.
"""

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from sync_logs.canonical.lake import RUN_AREA
from sync_logs.canonical.manifest import RECORD_FILE_FIELDS, folder_key
from sync_logs.canonical.plan import read_stored, sibling_relation

# The listing fingerprint of a row an older layout wrote: no listing hashes to it.
UPGRADED_LISTING = "upgraded: listed again"
# 0.1.0's table of inspected record batches, read by name beside the manifest.
RECORD_FILES_IDENTIFIER = "int_sync_logs__record_files"
RUN = ["sync_id", "sync_run_id"]


def stored_manifest(session: SparkSession, relation: str) -> DataFrame:
    """The run manifest table `relation` in the current layout (`upgraded_manifest` when an
    older release wrote it)."""
    stored = session.table(relation)
    if "folder_key" in stored.columns:
        return stored
    return upgraded_manifest(stored, old_record_files(session, relation))


def old_record_files(session: SparkSession, manifest_relation: str) -> DataFrame | None:
    """0.1.0's `int_sync_logs__record_files` beside the manifest, while it is still that table
    (this build replaces it with a view after the manifest)."""
    stored = read_stored(session, sibling_relation(manifest_relation, RECORD_FILES_IDENTIFIER))
    if stored is None or "record_files" in stored.columns or "folder_key" in stored.columns:
        return None
    if not {*RUN, "path", "is_loaded"} <= set(stored.columns):
        return None
    return stored


def upgraded_manifest(previous: DataFrame, record_files: DataFrame | None) -> DataFrame:
    """0.1.0's manifest rows with the columns added since: a folder key, a listing that no
    listing matches and no fingerprint (the folder is listed, parsed and inspected again when
    it is still in the lake), and the record batches 0.1.0 inspected (`record_files`)."""
    rows = previous.withColumns(
        {
            "area": F.lit(RUN_AREA),
            "fingerprint": F.lit(None).cast("string"),
            "listing_fingerprint": F.lit(UPGRADED_LISTING),
            "files": F.lit(None),
            "fact_rows": F.lit(None),
            "listed_at": F.lit(None).cast("timestamp"),
            "lake_fingerprint": F.lit(None).cast("string"),
        }
    ).withColumn("folder_key", folder_key())
    if record_files is None:
        return rows.withColumn("record_files", F.lit(None))
    fields = [
        F.col(name) if name in record_files.columns else F.lit(None).cast("string").alias(name)
        for name in RECORD_FILE_FIELDS
    ]
    batches = record_files.groupBy(*RUN).agg(
        F.array_sort(F.collect_list(F.struct(*fields))).alias("record_files")
    )
    return rows.join(batches, RUN, "left").withColumn(
        "record_files", F.when(F.col("is_valid"), F.col("record_files"))
    )
