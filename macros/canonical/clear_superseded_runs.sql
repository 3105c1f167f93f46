{#- Post-hook of `sync_changelog`: drops the partitions that an insert_overwrite cannot empty,
    those of committed runs cleared from the history (their folder turned invalid) and of
    reloaded runs that now have no records. See `int_sync_logs__build_plan`; the partitions of
    uncommitted runs it clears are dropped after the commit (`clear_uncommitted_runs`). -#}
{% macro clear_superseded_runs(relation) %}
    {%- if execute -%}
        {%- set stale_runs_query -%}
            select plan.sync_id, plan.sync_run_id
            from {{ ref('int_sync_logs__build_plan') }} as plan
            where
                (plan.action = 'clear' and plan.committed_version is not null)
                or (
                    plan.action = 'load'
                    and plan.is_superseded
                    and not exists (
                        select 1
                        from {{ ref('int_sync_logs__record_files') }} as files
                        inner join {{ ref('int_sync_logs__runs_to_load') }} as loaded
                            on
                                files.sync_id = loaded.sync_id
                                and files.sync_run_id = loaded.sync_run_id
                                and files.manifest_version = loaded.manifest_version
                        where
                            files.sync_id = plan.sync_id
                            and files.sync_run_id = plan.sync_run_id
                            and files.is_loaded
                            and files.num_rows > 0
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
