{#- The one place that reads `sync_logs_source`: where the staging layer reads from. -#}
{% macro source_mode() %}
    {%- set mode = var('sync_logs_source', 'package') -%}
    {%- set modes = ['package', 'tables', 'hightouch', 'census'] -%}
    {%- if mode not in modes -%}
        {{ exceptions.raise_compiler_error(
            "var sync_logs_source is '" ~ mode ~ "'; expected one of " ~ modes | join(', ')) }}
    {%- endif -%}
    {%- if mode == 'package' and target.type not in ['sparksession', 'spark', 'databricks'] -%}
        {{ exceptions.raise_compiler_error(
            "sync_logs_source 'package' reads this package's Python models, which run only on "
            ~ "Spark or Databricks; on " ~ target.type ~ " set var sync_logs_source to 'tables' "
            ~ "(canonical tables in sync_logs_tables_schema), 'hightouch' or 'census'.") }}
    {%- endif -%}
    {{ return(mode) }}
{% endmacro %}
