"""int_sync_logs__snapshot: the latest state of every row per sync, removed rows included
(`sync_logs.canonical.snapshot`).

Incremental (insert_overwrite by sync_id): a build writes the syncs it touches. A touched sync
left with no changelog row gets no row here; the post-hook `sync_logs.clear_emptied_syncs`
then drops its partition, which an overwrite with no rows cannot empty.
"""

from sync_logs.canonical import require_library, snapshot


def model(dbt, session):
    require_library(dbt.config.get("sync_logs_library"))
    return snapshot.snapshot_state(
        dbt.ref("sync_changelog"),
        dbt.ref("int_sync_logs__run_manifest"),
        plan=dbt.ref("int_sync_logs__runs_to_rewrite"),
        committed=dbt.ref("int_sync_logs__committed_runs"),
        previous=session.table(str(dbt.this)) if dbt.is_incremental else None,
    )
