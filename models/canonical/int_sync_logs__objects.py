"""int_sync_logs__objects: the objects runs point at, one row per (object_kind, id)
(`sync_logs.canonical.objects`). When the manifest was not written since the table was built,
the model returns the stored table, and nothing is written."""

from sync_logs.canonical import objects, plan, require_library


def model(dbt, session):
    require_library(dbt.config.get("sync_logs_library"))
    return objects.current_objects(
        dbt.ref("int_sync_logs__facts"),
        dbt.ref("int_sync_logs__run_manifest"),
        previous=plan.read_stored(session, str(dbt.this)),
    )
