"""sync_changelog: one row per record attempt, append-only history (`sync_logs.canonical.changelog`;
see the yml for the rules).

Incremental, insert_overwrite by (sync_id, sync_run_id): a build writes the partitions of the
runs it loads and of the already-loaded runs whose `op_type` / `payload_changed` a late run
changes, nothing else. The post-hook `sync_logs.clear_superseded_runs` then drops the partitions
of cleared runs and of reloaded runs that now have no records.
"""

from sync_logs.canonical import changelog, payloads, plan, require_library


def model(dbt, session):
    require_library(dbt.config.get("sync_logs_library"))
    rules = payloads.payload_rules(
        dbt.config.get("payload_fields_to_drop"),
        dbt.config.get("payload_fields_to_hash"),
        dbt.config.get("payload_hash_salt"),
        dbt.config.get("max_payload_bytes"),
    )
    return changelog.sync_changelog(
        session,
        rules,
        runs=dbt.ref("int_sync_logs__runs_to_load"),
        record_files=dbt.ref("int_sync_logs__record_files"),
        plan=plan.planned_runs(dbt.ref("int_sync_logs__build_plan")),
        previous=str(dbt.this) if dbt.is_incremental else None,
    )
