{{ config(materialized='view') }}

-- Every file the lake holds now, classified: the `files` of the run manifest's folders
-- (sync_logs.canonical.lake). A folder that left the lake has none.
select
    file.path,
    file.area,
    file.relative_path,
    file.folder_path,
    file.file_name,
    file.depth,
    file.org_id_text,
    file.sync_id_text,
    file.sync_run_id_text,
    file.org_id,
    file.sync_id,
    file.sync_run_id,
    file.file_kind,
    file.batch_type,
    file.batch_number,
    file.length,
    file.modification_time,
    file.problem,
    file.folder_conflict,
    file.hidden_depth,
    file.ignored_folder,
    file.ignored_name
from {{ ref('int_sync_logs__run_manifest') }}
lateral view inline(files) file
