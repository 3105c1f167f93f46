{#- Post-hook of `sync_runs`, the table that commits a build: drops the partitions of `changelog`
    (`sync_changelog`) that hold rows of runs never committed, which the build plan
    (`int_sync_logs__build_plan`) clears: rows of a build that failed before its commit, whose
    run folder then turned invalid, emptied or left the lake. Dropped only now, so that a build
    that fails before its commit finds them again. -#}
{% macro clear_uncommitted_runs(changelog) %}
    {%- if execute -%}
        {%- set uncommitted_runs_query -%}
            select plan.sync_id, plan.sync_run_id
            from {{ ref('int_sync_logs__build_plan') }} as plan
            where plan.action = 'clear' and plan.committed_version is null
        {%- endset -%}
        {%- set keys = [] -%}
        {%- for row in run_query(uncommitted_runs_query) -%}
            {%- do keys.append({'sync_id': row['sync_id'], 'sync_run_id': row['sync_run_id']}) -%}
        {%- endfor -%}
        {% do sync_logs.delete_partitions(changelog, keys) %}
    {%- endif -%}
{% endmacro %}
