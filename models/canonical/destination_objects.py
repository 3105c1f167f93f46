"""destination_objects: one row per destination object id (`int_sync_logs__objects`)."""

from pyspark.sql import functions as F

COLUMNS = ["id", "type", "name", "org_id", "record_source"]


def model(dbt, session):
    objects = dbt.ref("int_sync_logs__objects")
    return objects.filter(F.col("object_kind") == "destination_objects").select(*COLUMNS)
