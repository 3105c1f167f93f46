{#- Per sync, what pruning deletes: a list of dicts `sync_id`, `num_rows`, `num_runs` (runs
    with deleted rows) and `num_emptied_runs` (runs left without any row: on Spark parquet,
    the partitions dropped). `doomed` is a relation or a parenthesised query of `sync_id`,
    `sync_run_id`, `log_id`; `target` the history table. -#}
{% macro retention_summary(target, doomed) %}
    {%- set bigint = dbt.type_bigint() -%}
    {%- set summary_sql -%}
        with sync_logs_doomed_runs as (
            select
                sync_id,
                sync_run_id,
                count(*) as num_rows
            from {{ doomed }} as sync_logs_doomed
            group by sync_id, sync_run_id
        ),

        sync_logs_run_sizes as (
            select
                cast(sync_id as {{ bigint }}) as sync_id,
                cast(sync_run_id as {{ bigint }}) as sync_run_id,
                count(*) as num_rows
            from {{ target }}
            group by cast(sync_id as {{ bigint }}), cast(sync_run_id as {{ bigint }})
        )

        select
            doomed_runs.sync_id,
            sum(doomed_runs.num_rows) as num_rows,
            count(*) as num_runs,
            count(case when doomed_runs.num_rows = run_sizes.num_rows then 1 end) as num_emptied_runs
        from sync_logs_doomed_runs as doomed_runs
        inner join sync_logs_run_sizes as run_sizes
            on doomed_runs.sync_id = run_sizes.sync_id
            and doomed_runs.sync_run_id = run_sizes.sync_run_id
        group by doomed_runs.sync_id
        order by doomed_runs.sync_id
    {%- endset -%}
    {%- set summary = [] -%}
    {%- for row in run_query(summary_sql).rows -%}
        {%- do summary.append({
            'sync_id': row[0] | int, 'num_rows': row[1] | int, 'num_runs': row[2] | int,
            'num_emptied_runs': row[3] | int}) -%}
    {%- endfor -%}
    {{ return(summary) }}
{% endmacro %}
