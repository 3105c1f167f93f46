"""int_sync_logs__record_files: one row per record batch of every loaded run, inspected
(`sync_logs.canonical.inspection`).

Incremental (insert_overwrite by sync_id): a build inspects only the files of the runs it loads
and rewrites the partitions of their syncs, the other runs' rows as they were.
"""

from sync_logs.canonical import inspection, plan, require_library


def model(dbt, session):
    require_library(dbt.config.get("sync_logs_library"))
    runs = dbt.ref("int_sync_logs__runs_to_load")
    fresh = inspection.record_files(session, dbt.ref("int_sync_logs__lake_files"), runs)
    if not dbt.is_incremental:
        return fresh
    previous = session.table(str(dbt.this))
    planned = plan.planned_runs(dbt.ref("int_sync_logs__build_plan"))
    return inspection.with_other_runs(fresh, previous, runs, planned)
