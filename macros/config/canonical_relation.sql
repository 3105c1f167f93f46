{#- A canonical table (`sync_changelog`, `sync_runs`, ...): this package's Python model in
    mode `package`, the `sync_logs_tables` source in mode `tables`. -#}
{% macro canonical_relation(table_name) %}
    {%- if sync_logs.source_mode() == 'package' -%}
        {{ return(ref('sync_logs', table_name)) }}
    {%- else -%}
        {{ return(source('sync_logs_tables', table_name)) }}
    {%- endif -%}
{% endmacro %}
