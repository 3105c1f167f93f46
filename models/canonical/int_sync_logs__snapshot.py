"""int_sync_logs__snapshot: the latest state of every row per sync, removed rows included
(`sync_logs.canonical.snapshot`).

Incremental (insert_overwrite by sync_id): a build writes the syncs it touches. A touched sync
left with no changelog row gets no row here; the post-hook `sync_logs.clear_emptied_syncs`
then drops its partition, which an overwrite with no rows cannot empty.
"""

from sync_logs.canonical import plan, require_library, snapshot


def model(dbt, session):
    require_library(dbt.config.get("sync_logs_library"))
    build_plan = dbt.ref("int_sync_logs__build_plan")
    return snapshot.snapshot_state(
        dbt.ref("sync_changelog"),
        dbt.ref("int_sync_logs__run_manifest"),
        plan=plan.planned_runs(build_plan),
        committed=plan.committed_runs(build_plan),
        previous=session.table(str(dbt.this)) if dbt.is_incremental else None,
    )
