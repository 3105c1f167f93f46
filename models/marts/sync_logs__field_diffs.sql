{#- What changed in each row between consecutive runs: one row per field whose value differs
    from the row's payload in the previous run that planned it (run order: start time, then
    run id), including fields that appeared or disappeared. Values compare null-safely, so a
    change to or from null is a change. Removals are not payload versions and are skipped. -#}
{%- set in_changed_syncs = sync_logs.in_changed_syncs() %}
{{ config(enabled=var('sync_logs_field_diffs_enabled'), **sync_logs.sync_scoped_storage()) }}

with planned as (
    select
        log_id,
        sync_id,
        row_id,
        sync_run_id,
        run_started_at,
        attempted_at
    from {{ ref('int_sync_logs__row_runs') }}
    where op_type <> 'removed'
        and {{ in_changed_syncs }}
),

payloads as (
    select
        log_id,
        sync_id,
        sync_run_id,
        fields
    from {{ ref('stg_sync_logs__sync_changelog') }}
    where {{ in_changed_syncs }}
),

versions as (
    select
        planned.sync_id,
        planned.row_id,
        planned.sync_run_id,
        planned.run_started_at,
        planned.attempted_at,
        payloads.fields,
        lag(payloads.fields) over (
            partition by planned.sync_id, planned.row_id order by planned.run_started_at, planned.sync_run_id
        ) as previous_fields,
        lag(planned.sync_run_id) over (
            partition by planned.sync_id, planned.row_id order by planned.run_started_at, planned.sync_run_id
        ) as previous_sync_run_id
    from planned
    inner join payloads
        on planned.sync_id = payloads.sync_id
        and planned.sync_run_id = payloads.sync_run_id
        and planned.log_id = payloads.log_id
),

changed_versions as (
    select
        sync_id,
        row_id,
        sync_run_id,
        run_started_at,
        attempted_at,
        previous_sync_run_id,
        fields,
        previous_fields
    from versions
    where previous_sync_run_id is not null
        and {{ sync_logs.is_distinct_from('fields', 'previous_fields') }}
),

new_entries as (
    {{ sync_logs.json_object_entries(
        'changed_versions', 'fields', ['sync_id', 'row_id', 'sync_run_id']) }}
),

old_entries as (
    {{ sync_logs.json_object_entries(
        'changed_versions', 'previous_fields', ['sync_id', 'row_id', 'sync_run_id']) }}
),

compared as (
    select
        coalesce(new_entries.sync_id, old_entries.sync_id) as sync_id,
        coalesce(new_entries.row_id, old_entries.row_id) as row_id,
        coalesce(new_entries.sync_run_id, old_entries.sync_run_id) as sync_run_id,
        coalesce(new_entries.field_name, old_entries.field_name) as field_name,
        case
            when old_entries.field_name is null then 'appeared'
            when new_entries.field_name is null then 'disappeared'
            else 'changed'
        end as change_type,
        old_entries.field_value as old_value,
        new_entries.field_value as new_value
    from new_entries
    full outer join old_entries
        on new_entries.sync_id = old_entries.sync_id
        and new_entries.row_id = old_entries.row_id
        and new_entries.sync_run_id = old_entries.sync_run_id
        and new_entries.field_name = old_entries.field_name
    where old_entries.field_name is null
        or new_entries.field_name is null
        or {{ sync_logs.is_distinct_from('new_entries.field_value', 'old_entries.field_value') }}
)

select
    compared.sync_id,
    syncs.model_name,
    compared.row_id,
    compared.sync_run_id,
    changed_versions.previous_sync_run_id,
    changed_versions.run_started_at,
    changed_versions.attempted_at as changed_at,
    compared.field_name,
    compared.change_type,
    compared.old_value,
    compared.new_value
from compared
inner join changed_versions
    on compared.sync_id = changed_versions.sync_id
    and compared.row_id = changed_versions.row_id
    and compared.sync_run_id = changed_versions.sync_run_id
left join {{ ref('int_sync_logs__syncs') }} as syncs
    on compared.sync_id = syncs.sync_id
