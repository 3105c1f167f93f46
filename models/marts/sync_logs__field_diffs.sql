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

compared as (
    {{ sync_logs.json_object_diff(
        'changed_versions', 'fields', 'previous_fields',
        keys=['sync_id', 'row_id', 'sync_run_id'],
        columns=['sync_id', 'row_id', 'sync_run_id', 'previous_sync_run_id', 'run_started_at',
                 'attempted_at']) | indent(4) }}
)

select
    compared.sync_id,
    syncs.model_name,
    compared.row_id,
    compared.sync_run_id,
    compared.previous_sync_run_id,
    compared.run_started_at,
    compared.attempted_at as changed_at,
    compared.field_name,
    compared.change_type,
    compared.old_value,
    compared.new_value
from compared
left join {{ ref('int_sync_logs__syncs') }} as syncs
    on compared.sync_id = syncs.sync_id
