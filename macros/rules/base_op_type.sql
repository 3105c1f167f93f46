{#- op_type rules 1 and 2, which need no history, the same as `base_op_type` in
    sync_logs.canonical.changelog (tests/data/status_rules.csv): `added` when the record's
    operation or the run's behavior is `append`, `removed` when the operation is `delete`
    (compared case-insensitively, surrounding spaces ignored); null when the identifier is null
    or when the row's history decides (`op_type`). -#}
{% macro base_op_type(row_id, operation, behavior) -%}
    case
        when {{ row_id }} is null then cast(null as {{ dbt.type_string() }})
        when lower(trim({{ operation }})) = 'append' or lower(trim({{ behavior }})) = 'append' then 'added'
        when lower(trim({{ operation }})) = 'delete' then 'removed'
    end
{%- endmacro %}
