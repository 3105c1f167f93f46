{#- The failed_reason rule, the same as `map_status` in sync_logs.canonical.changelog
    (tests/data/status_rules.csv): the destination's `status_message` for `rejected`,
    `null identifier` / `duplicate identifier` for `NULL` / `DUPLICATE`, the run's error for a
    record never attempted (null or blank status; `null identifier` when its identifier is null
    too), null for `succeeded`; for an unknown status, its message, else
    `unknown status: <raw status>`. Raw statuses compare as in `changelog_status`. -#}
{% macro changelog_failed_reason(raw_status, status_message, run_error, row_id) -%}
    {%- set normalised = 'lower(trim(' ~ raw_status ~ '))' -%}
    {%- set missing = '(' ~ raw_status ~ ' is null or trim(' ~ raw_status ~ ") = '')" %}
    case
        when {{ missing }} and {{ row_id }} is null then 'null identifier'
        when {{ missing }} then {{ run_error }}
        when {{ normalised }} = 'succeeded' then cast(null as {{ dbt.type_string() }})
        when {{ normalised }} = 'rejected' then {{ status_message }}
        when {{ normalised }} = 'null' then 'null identifier'
        when {{ normalised }} = 'duplicate' then 'duplicate identifier'
        else coalesce({{ status_message }}, {{ dbt.concat(["'unknown status: '", raw_status]) }})
    end
{%- endmacro %}
