{{ config(materialized='view') }}

-- The valid run folders this build loads: the manifest rows of the plan's `load` runs
-- (int_sync_logs__build_plan), every valid run whose current manifest_version is not
-- committed: new runs, runs whose folder changed (new fingerprint, new version), and runs of
-- an earlier build that failed before sync_runs was written (the next build retries them). On
-- the first build every valid run is loaded. A view over two tables that do not change during
-- the build.
select
    manifest.org_id,
    manifest.sync_id,
    manifest.sync_run_id,
    manifest.run_folder,
    manifest.fingerprint,
    manifest.metadata_path,
    manifest.record_file_count,
    manifest.record_bytes,
    manifest.last_modified_at,
    manifest.unknown_keys,
    manifest.workspace_id,
    manifest.sync_run_started_at,
    manifest.sync_run_finished_at,
    manifest.sync_run_status,
    manifest.sync_run_error,
    manifest.behavior,
    manifest.primary_key,
    manifest.model_name,
    manifest.model_id,
    manifest.split_group,
    manifest.record_payload_schema,
    manifest.source_type,
    manifest.source_id,
    manifest.source_object_id,
    manifest.source_object_name,
    manifest.destination_type,
    manifest.destination_id,
    manifest.destination_object_id,
    manifest.destination_object_type,
    manifest.destination_object_name,
    manifest.manifest_version,
    manifest.manifest_updated_at
from {{ ref('int_sync_logs__run_manifest') }} as manifest
inner join {{ ref('int_sync_logs__build_plan') }} as plan
    on
        manifest.sync_id = plan.sync_id
        and manifest.sync_run_id = plan.sync_run_id
where manifest.is_valid and plan.action = 'load'
