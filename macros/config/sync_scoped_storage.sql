{#- How a sync-scoped incremental model writes, by target, as config() arguments: on dbt-spark's
    parquet tables, partitioned by sync, the build overwrites the syncs it rewrites; elsewhere
    (Databricks' delta tables, the SQL warehouses) it appends, after its pre-hook removed what
    it rewrites. `run_scoped`: each row of the model belongs to one run and depends on that run
    alone, so that a new run is written on its own (`changed_runs`): it is appended, on Spark
    parquet too, into its sync's partition (one partition per run costs a first build of 600
    runs a minute of metastore calls and small files). -#}
{% macro sync_scoped_storage(run_scoped=false) %}
    {%- set storage = {'incremental_strategy': 'append', 'partition_by': none} -%}
    {%- if sync_logs.is_spark_target(databricks=false) -%}
        {%- set storage = {'incremental_strategy': 'append' if run_scoped else 'insert_overwrite',
            'partition_by': ['sync_id']} -%}
    {%- endif -%}
    {%- if run_scoped -%}
        {%- do storage.update({'sync_logs_run_scoped': true}) -%}
    {%- endif -%}
    {{ return(storage) }}
{% endmacro %}
