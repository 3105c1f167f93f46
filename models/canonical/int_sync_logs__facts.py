"""int_sync_logs__facts: the rows of the fact files metadata/<org_id>/*.parquet, rebuilt every
build (`sync_logs.canonical.objects`)."""

from pyspark.sql import functions as F

from sync_logs.canonical import objects, require_library


def model(dbt, session):
    require_library(dbt.config.get("sync_logs_library"))
    lake_files = dbt.ref("int_sync_logs__lake_files")
    fact_files = lake_files.filter((F.col("file_kind") == "fact") & F.col("problem").isNull())
    return objects.read_facts(session, fact_files)
