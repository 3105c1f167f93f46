{#- The op_type rule, the same as `assign_op_types` in sync_logs.canonical.changelog
    (tests/data/status_rules.csv): null when the identifier is null; else `base_op_type` (rules
    1 and 2) when it applies; else `added` when the row has no succeeded state in an earlier run
    of the sync or that state is a removal (`previous_state` null or 'removed', from
    `previous_success_ctes`); else `changed`. -#}
{% macro op_type(row_id, base_op_type, previous_state) -%}
    case
        when {{ row_id }} is null then cast(null as {{ dbt.type_string() }})
        when {{ base_op_type }} is not null then {{ base_op_type }}
        when {{ previous_state }} is null or {{ previous_state }} = 'removed' then 'added'
        else 'changed'
    end
{%- endmacro %}
