"""source_objects: one row per source object id, from `int_sync_logs__objects` (see the yml)."""

from pyspark.sql import functions as F

COLUMNS = [
    "id",
    "type",
    "name",
    "model_id",
    "business_object_id",
    "filter_segment_id",
    "cohort_id",
    "org_id",
    "record_source",
]


def model(dbt, session):
    objects = dbt.ref("int_sync_logs__objects")
    return objects.filter(F.col("object_kind") == "source_objects").select(*COLUMNS)
