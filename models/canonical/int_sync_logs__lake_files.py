"""Inventory of every file under the lake root: names, sizes and times, never contents.

Spark's `binaryFile` source lists <root>/sync_tracking_datasets and <root>/metadata
recursively; selecting only path, length and modificationTime prunes the content column,
so no file is read. Spark's file listing hides names starting with `_` or `.` (`_SUCCESS`,
`.crc` checksums), exactly as every Spark reader does: they are skipped, not reported.
Works for any Spark URI (file://, s3a://, abfss://, gs://, dbfs:/) and plain paths.
"""

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

LISTING_SCHEMA = "path string, length bigint, modification_time timestamp, area string"


def list_area(session: SparkSession, raw_root: str, area: str) -> DataFrame:
    """path/length/modification_time of every file under <raw_root>/<area> (empty if absent)."""
    location = raw_root.rstrip("/") + "/" + area
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


def classify_files(listing: DataFrame) -> DataFrame:
    """Parse ids, file kind and problems from the path of every listed file.

    `relative_path` is what follows the last `/<area>/` in the path; in the run area a loadable
    file sits at org/sync/run/file, in the fact area at org/file.
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

    def folder(index: int) -> F.Column:
        return F.when(depth > index, F.element_at(parts, index))

    org_text = folder(1)
    sync_text = F.when(is_runs, folder(2))
    run_text = F.when(is_runs, folder(3))

    def as_id(text: F.Column) -> F.Column:
        return F.when(text.rlike(INTEGER_NAME), text.cast("bigint"))

    batch_match = F.col("file_name").rlike(BATCH_FILE)
    kind = (
        F.when(is_runs & (F.col("file_name") == "metadata.json"), F.lit("run_metadata"))
        .when(is_runs & batch_match, F.lit("record_batch"))
        .when(~is_runs & F.col("file_name").isin(*FACT_FILES), F.lit("fact"))
        .otherwise(F.lit("stray"))
    )

    def bad_folder(label: str, text: F.Column) -> F.Column:
        return F.when(
            text.isNotNull() & ~text.rlike(INTEGER_NAME),
            F.concat(F.lit(f"{label} folder name is not an integer: '"), text, F.lit("'")),
        )

    problem = F.coalesce(
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
            F.when(
                is_runs,
                F.lit("stray file: neither metadata.json nor <batch_type>.<batch_number>.parquet"),
            ).otherwise(F.lit("stray file: not one of " + ", ".join(FACT_FILES))),
        ),
    )
    return (
        listing.withColumn("relative_path", relative)
        .withColumn("file_name", file_name)
        .withColumn("depth", depth)
        .withColumn("expected_depth", expected_depth)
        .withColumn("org_id_text", org_text)
        .withColumn("sync_id_text", sync_text)
        .withColumn("sync_run_id_text", run_text)
        .withColumn("org_id", as_id(F.col("org_id_text")))
        .withColumn("sync_id", as_id(F.col("sync_id_text")))
        .withColumn("sync_run_id", as_id(F.col("sync_run_id_text")))
        .withColumn("file_kind", kind)
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
        .drop("expected_depth")
    )


def model(dbt, session):
    dbt.config(materialized="table")
    raw_root = dbt.config.get("raw_root")
    listing = list_area(session, raw_root, RUN_AREA).unionByName(
        list_area(session, raw_root, FACT_AREA)
    )
    return classify_files(listing).select(
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
    )
