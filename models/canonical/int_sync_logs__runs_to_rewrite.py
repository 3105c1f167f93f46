"""int_sync_logs__runs_to_rewrite: the build plan, one row per run a build writes or clears
(`sync_logs.canonical.plan`)."""

from sync_logs.canonical import plan, require_library


def model(dbt, session):
    require_library(dbt.config.get("sync_logs_library"))
    return plan.rewrite_plan(
        dbt.ref("int_sync_logs__runs_to_load"),
        dbt.ref("int_sync_logs__committed_runs"),
        dbt.ref("int_sync_logs__run_manifest"),
    )
