"""int_sync_logs__run_manifest: one row per run folder ever seen (`sync_logs.canonical.manifest`).

Incremental (insert_overwrite by sync_id): rows of new or changed run folders, and the
unchanged rows of the syncs they touch.
"""

from sync_logs.canonical import manifest, require_library


def model(dbt, session):
    require_library(dbt.config.get("sync_logs_library"))
    previous = session.table(str(dbt.this)) if dbt.is_incremental else None
    return manifest.build_manifest(session, dbt.ref("int_sync_logs__lake_files"), previous)
