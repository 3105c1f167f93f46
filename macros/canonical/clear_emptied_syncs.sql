{#- Post-hook of `sync_snapshot`: drops the partition of each sync the build touched whose rows
    were all removed (an insert_overwrite with no rows for a partition leaves it as it was). -#}
{% macro clear_emptied_syncs(relation) %}
    {%- if execute -%}
        {%- set emptied_syncs_query -%}
            select distinct plan.sync_id
            from {{ ref('int_sync_logs__runs_to_rewrite') }} as plan
            where not exists (
                select 1
                from {{ ref('int_sync_logs__snapshot') }} as state
                where state.sync_id = plan.sync_id and not state.is_removed
            )
        {%- endset -%}
        {%- set keys = [] -%}
        {%- for row in run_query(emptied_syncs_query) -%}
            {%- do keys.append({'sync_id': row['sync_id']}) -%}
        {%- endfor -%}
        {% do sync_logs.delete_partitions(relation, keys) %}
    {%- endif -%}
{% endmacro %}
