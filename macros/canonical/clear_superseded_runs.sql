{#- Post-hook of `sync_changelog`: drops the partitions that an insert_overwrite cannot empty,
    those of runs cleared from the history (their folder turned invalid) and of reloaded runs
    that now have no records. See `int_sync_logs__runs_to_rewrite`. -#}
{% macro clear_superseded_runs(relation) %}
    {%- if execute -%}
        {%- set stale_runs_query -%}
            select plan.sync_id, plan.sync_run_id
            from {{ ref('int_sync_logs__runs_to_rewrite') }} as plan
            where
                plan.action = 'clear'
                or (
                    plan.is_superseded
                    and not exists (
                        select 1
                        from {{ ref('int_sync_logs__records') }} as records
                        where
                            records.sync_id = plan.sync_id
                            and records.sync_run_id = plan.sync_run_id
                    )
                )
        {%- endset -%}
        {%- set keys = [] -%}
        {%- for row in run_query(stale_runs_query) -%}
            {%- do keys.append({'sync_id': row['sync_id'], 'sync_run_id': row['sync_run_id']}) -%}
        {%- endfor -%}
        {% do sync_logs.delete_partitions(relation, keys) %}
    {%- endif -%}
{% endmacro %}
