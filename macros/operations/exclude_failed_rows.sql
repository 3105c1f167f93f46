{#- A boolean SQL condition for the WHERE clause of your own model that drops rows whose
    latest sync attempt failed (or, with `ever=true`, that ever failed), so that a sync stops
    retrying records the destination keeps rejecting:
        select * from {{ ref('users') }} as users
        where {{ sync_logs.exclude_failed_rows('users.user_id', sync_id=1203) }}
    `row_id`: SQL expression of your model's sync key (compared as text).
    `sync_id`: optional; without it a failure in any sync excludes the row. -#}
{% macro exclude_failed_rows(row_id, sync_id=none, ever=false) %}
    {{ return(adapter.dispatch('exclude_failed_rows', 'sync_logs')(row_id, sync_id, ever)) }}
{% endmacro %}

{% macro default__exclude_failed_rows(row_id, sync_id, ever) -%}
    not exists (
        select 1
        from {{ ref('sync_logs', 'sync_logs__row_operations') }} as sync_logs_failed_rows
        where sync_logs_failed_rows.row_id = cast({{ row_id }} as {{ dbt.type_string() }})
        {%- if ever %}
            and sync_logs_failed_rows.has_failed
        {%- else %}
            and sync_logs_failed_rows.last_status = 'failed'
        {%- endif %}
        {%- if sync_id is not none %}
            and sync_logs_failed_rows.sync_id = {{ sync_id | int }}
        {%- endif %}
    )
{%- endmacro %}
