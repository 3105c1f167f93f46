{#- SQL of the (sync_id, sync_run_id) partitions of `sync_changelog` that a build's
    insert_overwrite cannot empty, which `clear_superseded_runs` drops: those of committed runs
    the plan clears, and of reloaded runs (`load`, superseded) whose load reads no record (no
    loaded file with rows in the run's current version). `plan`, `record_files` and
    `runs_to_load` are relations with the columns of `int_sync_logs__build_plan`,
    `int_sync_logs__record_files` and `int_sync_logs__runs_to_load`;
    tests/data/reload_partitions.csv holds the build plan and this rule to one table of cases. -#}
{% macro superseded_partitions_sql(plan, record_files, runs_to_load) -%}
    select plan.sync_id, plan.sync_run_id
    from {{ plan }} as plan
    where
        (plan.action = 'clear' and plan.committed_version is not null)
        or (
            plan.action = 'load'
            and plan.is_superseded
            and not exists (
                select 1
                from {{ record_files }} as files
                inner join {{ runs_to_load }} as loaded
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
{%- endmacro %}
