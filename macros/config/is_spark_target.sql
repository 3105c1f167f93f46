{#- Whether the target runs Spark: dbt-spark's adapters (`spark`, and `sparksession`, the
    embedded one of this repository) and Databricks; with `databricks=false`, dbt-spark's
    adapters only (parquet tables partitioned by column, no catalog). The one list of the Spark
    adapter types; the yml files, which dbt renders without macros, write it out (see
    docs/configuration.md). -#}
{% macro is_spark_target(databricks=true) %}
    {%- set types = ['sparksession', 'spark'] + (['databricks'] if databricks else []) -%}
    {{ return(target.type in types) }}
{% endmacro %}
