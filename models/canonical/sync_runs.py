"""sync_runs: one row per loaded run, metadata and counters (`sync_logs.canonical.runs`).

Incremental (insert_overwrite by sync_id): a build rewrites the syncs it touches. The last
canonical table a build writes: a run here with its current `manifest_version` commits its
load (see `int_sync_logs__build_plan`).
"""

from sync_logs.canonical import plan, require_library, runs


def model(dbt, session):
    require_library(dbt.config.get("sync_logs_library"))
    dbt.ref("int_sync_logs__snapshot")  # built first: this table commits the load
    return runs.sync_runs(
        dbt.ref("int_sync_logs__run_manifest"),
        dbt.ref("sync_changelog"),
        dbt.ref("int_sync_logs__record_files"),
        plan=plan.planned_runs(dbt.ref("int_sync_logs__build_plan")),
        previous=session.table(str(dbt.this)) if dbt.is_incremental else None,
    )
