{#- Where the staging layer reads from: var `sync_logs_source`, checked. The macros, models and
    analyses read it here; the property files, which dbt renders without macros, read the var. -#}
{% macro source_mode() %}
    {%- set mode = var('sync_logs_source') -%}
    {%- set modes = ['package', 'tables', 'hightouch', 'census'] -%}
    {%- if mode not in modes -%}
        {{ exceptions.raise_compiler_error(
            "var sync_logs_source is '" ~ mode ~ "', which is not a source mode: set it to one of "
            ~ "'package' (this package's Python models over the lake at sync_logs_raw_root, on "
            ~ "Spark or Databricks), 'tables' (canonical tables in sync_logs_tables_schema), "
            ~ "'hightouch' or 'census' (the vendor's warehouse tables).") }}
    {%- endif -%}
    {%- if mode == 'package' and not sync_logs.is_spark_target() -%}
        {{ exceptions.raise_compiler_error(
            "sync_logs_source 'package' (the default) builds this package's Python models, which "
            ~ "run only on Spark or Databricks, and target '" ~ target.name ~ "' is "
            ~ target.type ~ ": use a Spark target in your profile (type sparksession, spark or "
            ~ "databricks), or set var sync_logs_source to 'tables' (canonical tables in "
            ~ "sync_logs_tables_schema), 'hightouch' or 'census'.") }}
    {%- endif -%}
    {{ return(mode) }}
{% endmacro %}
