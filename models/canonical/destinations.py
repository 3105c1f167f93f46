"""destinations: one row per destination id, from `int_sync_logs__objects` (see the yml)."""

from pyspark.sql import functions as F

COLUMNS = ["id", "type", "name", "org_id", "record_source"]


def model(dbt, session):
    objects = dbt.ref("int_sync_logs__objects")
    return objects.filter(F.col("object_kind") == "destinations").select(*COLUMNS)
