"""sync_runs: one row per loaded run, metadata and counters (`sync_logs.canonical.runs`).

Incremental (insert_overwrite by sync_id): a build rewrites the syncs it touches. The last
canonical table a build writes: a run here with its current `manifest_version` commits its
load (see `int_sync_logs__build_plan`). The post-hooks then drop the partitions of touched syncs
left without a run, and the changelog partitions of the uncommitted runs the plan clears.
"""

from sync_logs.canonical import plan, require_library, runs


def model(dbt, session):
    require_library(dbt.config.get("sync_logs_library"))
    dbt.ref("int_sync_logs__snapshot")  # built first: this table commits the load
    build_plan = dbt.ref("int_sync_logs__build_plan")
    return runs.sync_runs(
        dbt.ref("int_sync_logs__run_manifest"),
        dbt.ref("sync_changelog"),
        dbt.ref("int_sync_logs__record_files"),
        plan=plan.planned_runs(build_plan),
        previous=session.table(str(dbt.this)) if dbt.is_incremental else None,
        committed=plan.committed_runs(build_plan),
    )
