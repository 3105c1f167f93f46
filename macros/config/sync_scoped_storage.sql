{#- How a sync-scoped incremental model writes, by target, as config() arguments: on dbt-spark's
    parquet tables the build overwrites the sync_id partitions it rewrites; elsewhere (Databricks'
    delta tables, the SQL warehouses) it appends, after its pre-hook removed those syncs' rows. -#}
{% macro sync_scoped_storage() %}
    {%- if sync_logs.is_spark_target(databricks=false) -%}
        {{ return({'incremental_strategy': 'insert_overwrite', 'partition_by': ['sync_id']}) }}
    {%- endif -%}
    {{ return({'incremental_strategy': 'append', 'partition_by': none}) }}
{% endmacro %}
