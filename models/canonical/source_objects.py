"""source_objects: from `int_sync_logs__objects` (`sync_logs.canonical.objects`; see the yml)."""

from sync_logs.canonical import objects, require_library


def model(dbt, session):
    require_library(dbt.config.get("sync_logs_library"))
    return objects.objects_of_kind(dbt.ref("int_sync_logs__objects"), "source_objects")
