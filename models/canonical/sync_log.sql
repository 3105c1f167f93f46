{{ config(materialized='view') }}

-- The per-record log in Census's sync_log shape: one row per changelog row (re-deliveries are
-- folded there, so log_id is unique), with the run's source and destination ids from its
-- metadata.json. A view over sync_changelog: no second copy of the history to keep in step.
-- Census's own column names are here too where ours differ (`_census_logged_at`), so a query
-- written for Census's sync_log runs unchanged.
select
    changelog.log_id,
    changelog.sync_id,
    changelog.sync_run_id,
    changelog.row_id as record_identifier,
    changelog.fields as record_payload,
    changelog.batch_started_at,
    changelog.batch_ended_at as batch_completed_at,
    changelog.operation,
    changelog.raw_status as status,
    changelog.status_message,
    changelog.logged_at,
    changelog.logged_at as _census_logged_at,
    runs.destination_id,
    runs.destination_object_id,
    runs.source_id,
    runs.source_object_id,
    changelog.org_id,
    changelog.batch_file
from {{ ref('sync_changelog') }} as changelog
left join {{ ref('int_sync_logs__run_manifest') }} as runs
    on
        changelog.org_id = runs.org_id
        and changelog.sync_id = runs.sync_id
        and changelog.sync_run_id = runs.sync_run_id
