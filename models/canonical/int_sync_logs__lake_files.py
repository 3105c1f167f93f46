"""int_sync_logs__lake_files: every file under the lake root, classified
(`sync_logs.canonical.lake`)."""

from sync_logs.canonical import lake, require_library


def model(dbt, session):
    dbt.config(materialized="table")
    require_library(dbt.config.get("sync_logs_library"))
    return lake.lake_files(session, dbt.config.get("raw_root"))
