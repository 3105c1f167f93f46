{#- A query (use it as a subquery, CTE body or `dbt show --inline`) of one record's full
    history: one row per attempt of `row_id`, in every sync (or in `sync_id` only), oldest
    first (run start, sync, run id, then the attempt's order within the sync). Reads the
    staged changelog and runs, so it works in every `sync_logs_source` mode.
    `changed_fields`: the top-level payload fields (sorted, comma-separated) whose value
    differs from the row's previous attempt in the same sync, whatever that attempt's
    status, fields that appeared or disappeared included; for an `added` attempt, and for
    the row's first attempt in the sync, every field of its payload (the whole record is
    sent); null when nothing differs. -#}
{% macro record_history(row_id, sync_id=none) %}
    {{ return(adapter.dispatch('record_history', 'sync_logs')(row_id, sync_id)) }}
{% endmacro %}

{% macro default__record_history(row_id, sync_id) -%}
with sync_logs_attempts as (
    select
        changelog.log_id,
        changelog.sync_id,
        changelog.sync_run_id,
        runs.started_at as run_started_at,
        coalesce(changelog.batch_started_at, runs.started_at) as attempted_at,
        changelog.row_id,
        changelog.op_type,
        changelog.status,
        changelog.failed_reason,
        changelog.fields
    from {{ ref('sync_logs', 'stg_sync_logs__sync_changelog') }} as changelog
    left join {{ ref('sync_logs', 'stg_sync_logs__sync_runs') }} as runs
        on changelog.sync_id = runs.sync_id
        and changelog.sync_run_id = runs.sync_run_id
    where changelog.row_id = '{{ dbt.escape_single_quotes(row_id | string) }}'
    {%- if sync_id is not none %}
        and changelog.sync_id = {{ sync_id | int }}
    {%- endif %}
),

sync_logs_versions as (
    select
        log_id,
        sync_id,
        sync_run_id,
        run_started_at,
        attempted_at,
        row_id,
        op_type,
        status,
        failed_reason,
        fields,
        row_number() over (
            partition by sync_id order by run_started_at, sync_run_id, attempted_at, log_id
        ) as attempt_number,
        case when op_type <> 'added' then lag(fields) over (
            partition by sync_id order by run_started_at, sync_run_id, attempted_at, log_id
        ) end as compared_fields
    from sync_logs_attempts
),

sync_logs_new_entries as (
    {{ sync_logs.json_object_entries('sync_logs_versions', 'fields', ['log_id']) }}
),

sync_logs_old_entries as (
    {{ sync_logs.json_object_entries('sync_logs_versions', 'compared_fields', ['log_id']) }}
),

sync_logs_changed_fields as (
    select
        coalesce(new_entries.log_id, old_entries.log_id) as log_id,
        coalesce(new_entries.field_name, old_entries.field_name) as field_name
    from sync_logs_new_entries as new_entries
    full outer join sync_logs_old_entries as old_entries
        on new_entries.log_id = old_entries.log_id
        and new_entries.field_name = old_entries.field_name
    where old_entries.field_name is null
        or new_entries.field_name is null
        or {{ sync_logs.is_distinct_from('new_entries.field_value', 'old_entries.field_value') }}
),

sync_logs_changed_lists as (
    select
        log_id,
        {{ sync_logs.string_agg_sorted('field_name', "', '") }} as changed_fields
    from sync_logs_changed_fields
    group by log_id
)

select
    versions.sync_id,
    versions.sync_run_id,
    versions.run_started_at,
    versions.attempted_at,
    versions.attempt_number,
    versions.log_id,
    versions.row_id,
    versions.op_type,
    versions.status,
    versions.failed_reason,
    changed_lists.changed_fields,
    versions.fields
from sync_logs_versions as versions
left join sync_logs_changed_lists as changed_lists
    on versions.log_id = changed_lists.log_id
order by versions.run_started_at, versions.sync_id, versions.sync_run_id, versions.attempt_number
{%- endmacro %}
