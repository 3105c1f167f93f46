"""destination_objects: one row per id from its fact files (the latest file wins).

Fact files lag behind runs (refreshed every few hours), so ids that run metadata.json names
but no fact file holds yet are added from the most recent run naming them
(`record_source = 'run_metadata'`), so a brand-new sync is never missing here.
"""

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

COLUMNS = ["id", "type", "name"]


def from_fact_files(facts: DataFrame) -> DataFrame:
    rows = facts.filter(
        (F.col("row_kind") == "row")
        & (F.col("fact_table") == "destination_objects")
        & F.col("id").isNotNull()
    )
    latest = F.struct(*[F.col(c) for c in COLUMNS if c != "id"], F.col("org_id"))
    return (
        rows.groupBy("id")
        .agg(F.max_by(latest, F.struct("file_modified_at", "path")).alias("latest"))
        .select(
            "id",
            *[F.col("latest." + c).alias(c) for c in COLUMNS if c != "id"],
            F.col("latest.org_id").alias("org_id"),
        )
        .withColumn("record_source", F.lit("fact_file"))
    )


def from_run_metadata(runs: DataFrame) -> DataFrame:
    named = runs.filter(F.col("destination_object_id").isNotNull()).select(
        F.col("destination_object_id").alias("id"),
        F.col("destination_object_type").alias("type"),
        F.col("destination_object_name").alias("name"),
        "org_id",
        "sync_run_started_at",
        "sync_run_id",
    )
    latest = F.struct(*[F.col(c) for c in COLUMNS if c != "id"], F.col("org_id"))
    return (
        named.groupBy("id")
        .agg(F.max_by(latest, F.struct("sync_run_started_at", "sync_run_id")).alias("latest"))
        .select(
            "id",
            *[F.col("latest." + c).alias(c) for c in COLUMNS if c != "id"],
            F.col("latest.org_id").alias("org_id"),
        )
        .withColumn("record_source", F.lit("run_metadata"))
    )


def build(facts: DataFrame, runs: DataFrame) -> DataFrame:
    known = from_fact_files(facts)
    missing = from_run_metadata(runs).join(known.select("id"), "id", "left_anti")
    return known.unionByName(missing).select(*COLUMNS, "org_id", "record_source")


def model(dbt, session):
    facts = dbt.ref("int_sync_logs__facts")
    runs = dbt.ref("int_sync_logs__run_manifest").filter(F.col("is_valid"))
    return build(facts, runs)
