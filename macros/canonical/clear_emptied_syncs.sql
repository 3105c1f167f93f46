{#- Post-hook of the tables partitioned by sync_id that a build rewrites per touched sync
    (`int_sync_logs__build_plan`): drops the partition of each touched sync that has no row
    left, which an insert_overwrite cannot empty (it overwrites only the partitions it writes).
    A touched sync has rows left when `remaining` (a relation with `sync_id` and `sync_run_id`
    columns) holds a row of it matching the SQL condition `remaining_condition`, of a run the
    plan does not clear. -#}
{% macro clear_emptied_syncs(relation, remaining, remaining_condition) %}
    {#- only a sync the plan touches can be emptied; `remaining` is read for those syncs alone,
        by literal ids, so that a partitioned table reads their partitions only -#}
    {%- if execute -%}
        {%- set touched_query -%}
            select distinct plan.sync_id
            from {{ ref('int_sync_logs__build_plan') }} as plan
            where plan.action is not null
        {%- endset -%}
        {%- set touched = run_query(touched_query).columns[0].values() | map('int') | list -%}
    {%- endif -%}
    {%- if execute and touched -%}
        {%- set emptied_syncs_query -%}
            {#- one row per sync, so that the check below compares a few ids, not every
                remaining row (at 10M changelog rows, 1.3 s against 3.1 s on Spark) -#}
            with kept as (
                select distinct remaining.sync_id
                from {{ remaining }} as remaining
                where
                    remaining.sync_id in ({{ touched | join(', ') }})
                    and ({{ remaining_condition }})
                    and not exists (
                        select 1
                        from {{ ref('int_sync_logs__build_plan') }} as cleared
                        where
                            cleared.action = 'clear'
                            and cleared.sync_id = remaining.sync_id
                            and cleared.sync_run_id = remaining.sync_run_id
                    )
            )

            select distinct plan.sync_id
            from {{ ref('int_sync_logs__build_plan') }} as plan
            where
                plan.action is not null
                and not exists (
                    select 1
                    from kept
                    where kept.sync_id = plan.sync_id
                )
        {%- endset -%}
        {%- set keys = [] -%}
        {%- for row in run_query(emptied_syncs_query) -%}
            {%- do keys.append({'sync_id': row['sync_id']}) -%}
        {%- endfor -%}
        {% do sync_logs.delete_partitions(relation, keys) %}
    {%- endif -%}
{% endmacro %}
