{#- A query (use it as a subquery or CTE body) of the rows that were members of a sync's
    audience at time `at`: one row per (sync_id, model_name, row_id).
    `at`: a SQL expression for a timestamp, e.g. "'2026-10-01 12:00:00'" or "current_timestamp".
    `model_name`, `sync_id`: optional filters (a string, a number). -#}
{% macro members_at(at, model_name=none, sync_id=none) %}
    {{ return(adapter.dispatch('members_at', 'sync_logs')(at, model_name, sync_id)) }}
{% endmacro %}

{% macro default__members_at(at, model_name, sync_id) -%}
    select distinct
        sync_id,
        model_name,
        row_id
    from {{ ref('sync_logs', 'sync_logs__membership_history') }}
    where valid_from <= cast({{ at }} as {{ dbt.type_timestamp() }})
        and (valid_to is null or valid_to > cast({{ at }} as {{ dbt.type_timestamp() }}))
    {%- if model_name is not none %}
        and model_name = '{{ dbt.escape_single_quotes(model_name) }}'
    {%- endif %}
    {%- if sync_id is not none %}
        and sync_id = {{ sync_id | int }}
    {%- endif %}
{%- endmacro %}
