"""int_sync_logs__record_files: one row per record batch of every loaded run, inspected
(`sync_logs.canonical.inspection`).

Incremental (insert_overwrite by sync_id): a build inspects only the files of the runs it loads
and rewrites the partitions of their syncs, the other runs' rows as they were.
"""

from sync_logs.canonical import inspection, plan, require_library


def model(dbt, session):
    require_library(dbt.config.get("sync_logs_library"))
    return inspection.loaded_record_files(
        session,
        dbt.ref("int_sync_logs__lake_files"),
        dbt.ref("int_sync_logs__runs_to_load"),
        plan=plan.planned_runs(dbt.ref("int_sync_logs__build_plan")),
        previous=session.table(str(dbt.this)) if dbt.is_incremental else None,
    )
