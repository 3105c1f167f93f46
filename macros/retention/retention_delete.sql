{#- Deletes from `target` (the history table) the rows listed in `doomed` (a table of
    `sync_id`, `sync_run_id`, `log_id`). SQL warehouses and Delta: DELETE / MERGE ... DELETE.
    Spark parquet has no DELETE: the affected (sync_id, sync_run_id) partitions are rewritten
    with the rows they keep (staged in a working table first, since Spark does not overwrite
    a table it reads from in the same statement) and partitions that keep nothing are
    dropped. -#}
{% macro retention_delete(target, doomed) %}
    {{ return(adapter.dispatch('retention_delete', 'sync_logs')(target, doomed)) }}
{% endmacro %}

{% macro default__retention_delete(target, doomed) %}
    {%- set delete_sql -%}
        delete from {{ target }}
        where cast(log_id as {{ dbt.type_string() }}) in (
            select sync_logs_doomed.log_id
            from {{ doomed }} as sync_logs_doomed
        )
    {%- endset -%}
    {%- do sync_logs.retention_execute('sync_logs_retention_delete', delete_sql) -%}
{% endmacro %}

{% macro databricks__retention_delete(target, doomed) %}
    {{ sync_logs.retention_merge_delete(target, doomed) }}
{% endmacro %}

{% macro spark__retention_delete(target, doomed) %}
    {%- if target.is_delta -%}
        {{ sync_logs.retention_merge_delete(target, doomed) }}
        {{ return(none) }}
    {%- endif -%}
    {%- set partitions = sync_logs.retention_spark_partition_columns(target) -%}
    {%- if partitions != ['sync_id', 'sync_run_id'] -%}
        {{ exceptions.raise_compiler_error(
            "prune_sync_logs: " ~ target ~ " is a Spark table without DELETE (not Delta) and is "
            ~ "partitioned by " ~ (partitions | join(', ') or 'nothing') ~ ", so its old rows cannot "
            ~ "be rewritten partition by partition. Partition it by (sync_id, sync_run_id), as this "
            ~ "package's sync_changelog is, or store it as Delta.") }}
    {%- endif -%}
    {%- set kept = api.Relation.create(
        database=target.database, schema=target.schema, identifier='sync_logs_retention_kept', type='table') -%}
    {%- do sync_logs.retention_execute('sync_logs_retention_drop', 'drop table if exists ' ~ kept) -%}
    {%- set kept_sql -%}
        select sync_logs_target.*
        from {{ target }} as sync_logs_target
        left semi join (
            select distinct sync_id, sync_run_id
            from {{ doomed }}
        ) as sync_logs_runs
            on sync_logs_target.sync_id = sync_logs_runs.sync_id
            and sync_logs_target.sync_run_id = sync_logs_runs.sync_run_id
        left anti join {{ doomed }} as sync_logs_doomed
            on sync_logs_target.sync_id = sync_logs_doomed.sync_id
            and sync_logs_target.sync_run_id = sync_logs_doomed.sync_run_id
            and cast(sync_logs_target.log_id as string) = sync_logs_doomed.log_id
    {%- endset -%}
    {%- do sync_logs.retention_stage_table(kept, kept_sql) -%}
    {%- set emptied = run_query(
        "select distinct doomed.sync_id, doomed.sync_run_id from " ~ doomed ~ " as doomed"
        ~ " left anti join " ~ kept ~ " as kept on doomed.sync_id = kept.sync_id"
        ~ " and doomed.sync_run_id = kept.sync_run_id") -%}
    {%- set mode_key = 'spark.sql.sources.partitionOverwriteMode' -%}
    {%- set previous_mode = run_query('set ' ~ mode_key).columns[1].values()[0] -%}
    {%- do run_query('set ' ~ mode_key ~ '=dynamic') -%}
    {%- call statement('sync_logs_retention_rewrite') -%}
        insert overwrite table {{ target }} partition (sync_id, sync_run_id)
        select * from {{ kept }}
    {%- endcall -%}
    {%- do run_query('set ' ~ mode_key ~ '=' ~ previous_mode) -%}
    {%- do sync_logs.test_kill_point('retention_rewritten') -%}
    {%- for chunk in emptied.rows | batch(200) -%}
        {%- call statement('sync_logs_retention_drop_partitions') -%}
            alter table {{ target }} drop if exists
            {%- for row in chunk %}
            partition (sync_id = {{ row[0] }}, sync_run_id = {{ row[1] }}){{ ',' if not loop.last }}
            {%- endfor %}
        {%- endcall -%}
    {%- endfor -%}
    {%- do sync_logs.retention_execute('sync_logs_retention_drop', 'drop table if exists ' ~ kept) -%}
    {%- do run_query('refresh table ' ~ target) -%}
{% endmacro %}
