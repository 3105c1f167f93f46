{#- Post-hook of `sync_changelog`: drops the partitions that an insert_overwrite cannot empty,
    those of committed runs cleared from the history (their folder turned invalid) and of
    reloaded runs that now have no records (`superseded_partitions_sql`). See
    `int_sync_logs__build_plan`; the partitions of uncommitted runs it clears are dropped after
    the commit (`clear_uncommitted_runs`). -#}
{% macro clear_superseded_runs(relation) %}
    {#- both kinds are superseded runs of the plan -#}
    {%- if execute and sync_logs.build_plan_holds('plan.is_superseded') -%}
        {%- set stale_runs_query = sync_logs.superseded_partitions_sql(
            ref('int_sync_logs__build_plan'),
            ref('int_sync_logs__record_files'),
            ref('int_sync_logs__runs_to_load')) -%}
        {%- set keys = [] -%}
        {%- for row in run_query(stale_runs_query) -%}
            {%- do keys.append({'sync_id': row['sync_id'], 'sync_run_id': row['sync_run_id']}) -%}
        {%- endfor -%}
        {% do sync_logs.delete_partitions(relation, keys) %}
    {%- endif -%}
{% endmacro %}
