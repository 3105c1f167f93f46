{{ config(materialized='view') }}

-- Every file or run folder not loaded, with its reason, and the warnings of loaded runs.
-- severity = 'not_loaded': the item was not loaded; 'warning': loaded, with a warning;
-- 'ignored': hidden files (names starting with '_' or '.'), one row per folder holding them.
-- Built from the current listing (stray files, bad folder names, fact file problems), the run
-- manifest (run folders not loaded, valid ones that left the lake before their load was
-- committed, unknown metadata keys) and the persisted load tables
-- (record files not loaded, record-level warnings counted in sync_runs), so problems found
-- when a run was loaded stay reported after later builds.
with items as (
    select
        'file' as item_type,
        'not_loaded' as severity,
        path,
        org_id,
        sync_id,
        sync_run_id,
        problem as reason,
        cast(null as bigint) as record_count,
        'lake_listing' as detected_by
    from {{ ref('int_sync_logs__lake_files') }}
    where problem is not null

    union all

    -- hidden files (a name on the path starts with _ or .): ignored, counted per folder
    select
        'folder' as item_type,
        'ignored' as severity,
        ignored_folder as path,
        max(case when hidden_depth > 1 then org_id end) as org_id,
        max(case when area = 'sync_tracking_datasets' and hidden_depth > 2 then sync_id end)
            as sync_id,
        max(case when area = 'sync_tracking_datasets' and hidden_depth > 3 then sync_run_id end)
            as sync_run_id,
        concat(
            cast(count(*) as string),
            ' hidden file(s) ignored (a name on the path starts with ''_'' or ''.''): ',
            array_join(slice(array_sort(collect_list(ignored_name)), 1, 20), ', '),
            case when count(*) > 20 then ', ...' else '' end
        ) as reason,
        count(*) as record_count,
        'lake_listing' as detected_by
    from {{ ref('int_sync_logs__lake_files') }}
    where file_kind = 'hidden'
    group by ignored_folder

    union all

    select
        'run_folder' as item_type,
        'not_loaded' as severity,
        run_folder as path,
        org_id,
        sync_id,
        sync_run_id,
        invalid_reason as reason,
        cast(null as bigint) as record_count,
        'run_manifest' as detected_by
    from {{ ref('int_sync_logs__run_manifest') }}
    where not is_valid

    union all

    -- valid run folders that left the lake before their load was committed: never loaded
    select
        'run_folder' as item_type,
        'not_loaded' as severity,
        manifest.run_folder as path,
        manifest.org_id,
        manifest.sync_id,
        manifest.sync_run_id,
        'the run folder left the lake before its load was committed' as reason,
        cast(null as bigint) as record_count,
        'run_manifest' as detected_by
    from {{ ref('int_sync_logs__run_manifest') }} as manifest
    where
        manifest.is_valid
        and size(filter(manifest.files, file -> file.file_kind <> 'hidden')) = 0
        and not exists (
            select 1
            from {{ ref('sync_runs') }} as runs
            where
                runs.sync_id = manifest.sync_id
                and runs.sync_run_id = manifest.sync_run_id
        )

    union all

    select
        'run_folder' as item_type,
        'warning' as severity,
        concat(run_folder, '/metadata.json') as path,
        org_id,
        sync_id,
        sync_run_id,
        concat(
            'metadata.json has unknown key(s), ignored: ', array_join(unknown_keys, ', ')
        ) as reason,
        cast(null as bigint) as record_count,
        'run_manifest' as detected_by
    from {{ ref('int_sync_logs__run_manifest') }}
    where is_valid and size(unknown_keys) > 0

    union all

    select
        'file' as item_type,
        'not_loaded' as severity,
        path,
        org_id,
        sync_id,
        sync_run_id,
        problem as reason,
        cast(null as bigint) as record_count,
        'record_file_load' as detected_by
    from {{ ref('int_sync_logs__record_files') }}
    where not is_loaded

    union all

    select
        'file' as item_type,
        'warning' as severity,
        path,
        org_id,
        sync_id,
        sync_run_id,
        concat(
            'missing optional column(s), loaded as null: ', missing_columns
        ) as reason,
        num_rows as record_count,
        'record_file_load' as detected_by
    from {{ ref('int_sync_logs__record_files') }}
    where is_loaded and missing_columns is not null

    union all

    {#- one warning row per run and counter of records loaded with a problem -#}
    {%- set record_warnings = [
        ('num_payload_errors', "' record(s) whose record_payload is null, empty or not a JSON object: loaded with fields = null'"),
        ('num_unknown_status', "' record(s) with an unknown raw status: loaded with status = ''failed'''"),
        ('num_payloads_truncated', "' record(s) whose record_payload is over sync_logs_max_payload_bytes: loaded with fields = the truncation marker'"),
        ('num_timestamp_errors', "' record(s) whose batch_started_at or batch_ended_at is text that is not a timestamp: loaded as null (see sync_changelog.timestamp_problem)'"),
    ] %}
    {%- for counter, message in record_warnings %}
    select
        'records' as item_type,
        'warning' as severity,
        run_folder as path,
        org_id,
        sync_id,
        sync_run_id,
        concat(cast({{ counter }} as string), {{ message }}) as reason,
        {{ counter }} as record_count,
        'record_load' as detected_by
    from {{ ref('sync_runs') }}
    where {{ counter }} > 0

    union all
    {% endfor %}

    select
        'file' as item_type,
        'not_loaded' as severity,
        path,
        org_id,
        cast(null as bigint) as sync_id,
        cast(null as bigint) as sync_run_id,
        problem as reason,
        cast(null as bigint) as record_count,
        'fact_file_load' as detected_by
    from {{ ref('int_sync_logs__facts') }}
    where row_kind = 'file_problem'

    union all

    -- loaded fact files with rows that hold a bad value, or that repeat an id
    select
        'file' as item_type,
        'warning' as severity,
        path,
        org_id,
        cast(null as bigint) as sync_id,
        cast(null as bigint) as sync_run_id,
        concat(cast(count(*) as string), ' row(s) with ', problem) as reason,
        count(*) as record_count,
        'fact_file_load' as detected_by
    from {{ ref('int_sync_logs__facts') }}
    where row_kind = 'row' and problem is not null
    group by path, org_id, problem

    union all

    select
        'file' as item_type,
        'warning' as severity,
        path,
        org_id,
        cast(null as bigint) as sync_id,
        cast(null as bigint) as sync_run_id,
        concat(
            cast(count(distinct id) as string),
            ' id(s) on more than one row: the last row of each id in the file is used'
        ) as reason,
        count(distinct id) as record_count,
        'fact_file_load' as detected_by
    from (
        select
            path,
            org_id,
            id
        from {{ ref('int_sync_logs__facts') }}
        where row_kind = 'row' and id is not null
        group by path, org_id, id
        having count(*) > 1
    ) as repeated
    group by path, org_id
)

select
    sha2(concat_ws('|', item_type, severity, path, reason), 256) as quarantine_id,
    item_type,
    severity,
    path,
    org_id,
    sync_id,
    sync_run_id,
    reason,
    record_count,
    detected_by
from items
