{#- Whether this invocation takes the build lease: var `sync_logs_build_lease`, by default on
    for the Spark targets whose warehouse other processes share (dbt-spark's thrift/http/odbc,
    Databricks). The embedded warehouse (`sparksession`) has its lock file instead. Only the
    commands that write take it. -#}
{% macro uses_build_lease() %}
    {%- set wanted = var('sync_logs_build_lease', none) -%}
    {%- if wanted is none -%}
        {%- set wanted = target.type in ['spark', 'databricks'] -%}
    {%- endif -%}
    {{ return(wanted and flags.WHICH in ['run', 'build', 'seed', 'snapshot', 'run-operation']) }}
{% endmacro %}
