"""int_sync_logs__objects: the objects runs point at, one row per (object_kind, id)
(`sync_logs.canonical.objects`)."""

from sync_logs.canonical import objects, require_library


def model(dbt, session):
    require_library(dbt.config.get("sync_logs_library"))
    return objects.objects(dbt.ref("int_sync_logs__facts"), dbt.ref("int_sync_logs__run_manifest"))
