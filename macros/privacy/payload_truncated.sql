{#- True when the payload text `fields` is the truncation marker (`truncation_marker_start`),
    false otherwise (a null payload too). -#}
{% macro payload_truncated(fields) -%}
    coalesce({{ fields }} like '{{ sync_logs.truncation_marker_start() }}%', false)
{%- endmacro %}
