-- A regression check of the package's code: with var sync_logs_all_data_tests.
{{ config(enabled=var('sync_logs_all_data_tests')) }}

-- Nothing lost: every valid run folder of the manifest has its row in sync_runs, and every
-- run folder that is not loaded is reported in the quarantine (not valid, or valid but gone
-- from the lake before its load was committed).
select
    manifest.org_id,
    manifest.sync_id,
    manifest.sync_run_id,
    manifest.is_valid
from {{ ref('int_sync_logs__run_manifest') }} as manifest
left join {{ ref('sync_runs') }} as runs
    on manifest.sync_id = runs.sync_id and manifest.sync_run_id = runs.sync_run_id
left join {{ ref('sync_logs_quarantine') }} as quarantine
    on
        manifest.run_folder = quarantine.path
        and quarantine.item_type = 'run_folder'
        and quarantine.severity = 'not_loaded'
where
    quarantine.path is null
    and ((manifest.is_valid and runs.sync_run_id is null) or not manifest.is_valid)
