{#- Whether this invocation takes the build lease: var `sync_logs_build_lease`, by default on
    for the Spark targets whose warehouse other processes share (dbt-spark's thrift/http/odbc,
    Databricks). The embedded warehouse (`sparksession`) has its lock file instead. Only the
    commands that write take it. -#}
{% macro uses_build_lease() %}
    {%- set wanted = var('sync_logs_build_lease') -%}
    {%- if wanted is none -%}
        {%- set wanted = sync_logs.is_spark_target() and target.type != 'sparksession' -%}
    {%- endif -%}
    {{ return(wanted and flags.WHICH in ['run', 'build', 'seed', 'snapshot', 'run-operation']) }}
{% endmacro %}
