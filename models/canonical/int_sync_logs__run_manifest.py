"""int_sync_logs__run_manifest: the lake's inventory, one row per folder ever listed: run folders
with their metadata and inspected record batches, fact folders with their rows
(`sync_logs.canonical.manifest`).

Incremental (insert_overwrite by sync_id): the folders whose listing changed, and the other rows
of their syncs; nothing when no folder changed, and no classification when the whole listing is
as the latest written rows found it. A table an older release wrote is read in the current
layout (`sync_logs.canonical.upgrade`).
"""

from sync_logs.canonical import manifest, require_library, upgrade


def model(dbt, session):
    require_library(dbt.config.get("sync_logs_library"))
    previous = upgrade.stored_manifest(session, str(dbt.this)) if dbt.is_incremental else None
    return manifest.current_manifest(
        session, dbt.config.get("raw_root"), previous, rules=dbt.config.get("sync_logs_library")
    )
