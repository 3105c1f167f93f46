{#- The payload_changed rule, the same as `assign_op_types` in
    sync_logs.canonical.changelog (tests/data/status_rules.csv): null when op_type is null,
    true for `added`, false for `removed`, and for `changed` whether the payload differs
    (null-safe) from the payload of the row's last succeeded state (`previous_payload`). -#}
{% macro payload_changed(op_type, payload, previous_payload) -%}
    case
        when {{ op_type }} is null then cast(null as {{ dbt.type_boolean() }})
        when {{ op_type }} = 'added' then true
        when {{ op_type }} = 'removed' then false
        else {{ sync_logs.is_distinct_from(payload, previous_payload) }}
    end
{%- endmacro %}
