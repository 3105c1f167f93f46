{{ config(materialized='view') }}

-- One row per record batch of every valid run, inspected when the run's loadable files last
-- changed: the `record_files` of the run manifest (sync_logs.canonical.manifest).
select
    manifest.org_id,
    file.path,
    file.file_name,
    file.batch_type,
    file.batch_number,
    file.length,
    file.modification_time,
    file.num_rows,
    file.read_schema,
    file.extra_columns,
    file.missing_columns,
    file.problem,
    file.is_loaded,
    manifest.manifest_version,
    manifest.manifest_updated_at as inspected_at,
    manifest.sync_id,
    manifest.sync_run_id
from {{ ref('int_sync_logs__run_manifest') }} as manifest
lateral view inline(manifest.record_files) file
where manifest.is_valid
