"""The objects runs point at, for `source_objects`, `destinations` and `destination_objects`.

One row per (object_kind, id). The latest fact file holding the id wins (file modification time,
then path), and within it the last row holding the id (`row_index`). Ids that only run metadata
names yet (the fact files lag behind runs) come from the most recent valid run naming them (run
start, then org, sync and run id), with what metadata.json says of them, and
record_source = 'run_metadata'. No two candidates tie: the choice is the same on every build.
"""

from functools import reduce

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

FACT_COLUMNS = {
    "type": "string",
    "name": "string",
    "model_id": "bigint",
    "business_object_id": "bigint",
    "filter_segment_id": "bigint",
    "cohort_id": "bigint",
    "org_id": "bigint",
}
# object_kind: (the run manifest's id column, {fact column: the manifest column filling it})
RUN_METADATA = {
    "source_objects": (
        "source_object_id",
        {"name": "source_object_name", "model_id": "model_id", "org_id": "org_id"},
    ),
    "destinations": ("destination_id", {"type": "destination_type", "org_id": "org_id"}),
    "destination_objects": (
        "destination_object_id",
        {"type": "destination_object_type", "name": "destination_object_name", "org_id": "org_id"},
    ),
}


def from_fact_files(facts: DataFrame) -> DataFrame:
    rows = facts.filter(
        (F.col("row_kind") == "row")
        & F.col("id").isNotNull()
        & F.col("fact_table").isin(*RUN_METADATA)
    )
    latest = F.max_by(F.struct(*FACT_COLUMNS), F.struct("file_modified_at", "path", "row_index"))
    return (
        rows.groupBy(F.col("fact_table").alias("object_kind"), "id")
        .agg(latest.alias("latest"))
        .select("object_kind", "id", "latest.*", F.lit("fact_file").alias("record_source"))
    )


def from_run_metadata(manifest: DataFrame) -> DataFrame:
    valid = manifest.filter(F.col("is_valid"))
    frames = []
    for kind, (id_column, filled) in RUN_METADATA.items():
        values = [
            (F.col(filled[name]) if name in filled else F.lit(None)).cast(kind_type).alias(name)
            for name, kind_type in FACT_COLUMNS.items()
        ]
        latest = F.max_by(
            F.struct(*values),
            F.struct("sync_run_started_at", "org_id", "sync_id", "sync_run_id"),
        )
        frames.append(
            valid.filter(F.col(id_column).isNotNull())
            .groupBy(F.col(id_column).alias("id"))
            .agg(latest.alias("latest"))
            .select(
                F.lit(kind).alias("object_kind"),
                "id",
                "latest.*",
                F.lit("run_metadata").alias("record_source"),
            )
        )
    return reduce(DataFrame.unionByName, frames)


def objects(facts: DataFrame, manifest: DataFrame) -> DataFrame:
    files = from_fact_files(facts)
    named_by_runs = from_run_metadata(manifest).join(
        files.select("object_kind", "id"), ["object_kind", "id"], "left_anti"
    )
    return files.unionByName(named_by_runs)


def model(dbt, session):
    return objects(dbt.ref("int_sync_logs__facts"), dbt.ref("int_sync_logs__run_manifest"))
