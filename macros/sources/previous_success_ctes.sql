{#- For vendor modes that lack our derived columns: renders CTEs (to follow a comma in a
    `with` list) ending in `sync_logs_previous_success`, one row per (sync_id, row_id,
    sync_run_id) of `attempts` with the row's last succeeded state *before* that run:
    `previous_state` ('present' or 'removed', null if it never succeeded) and
    `previous_fields` (the payload of that state). Runs are ordered by (run_started_at,
    sync_run_id), never by load order. `attempts` must have sync_id, sync_run_id,
    run_started_at, row_id, status, success_state ('present' or 'removed') and fields. -#}
{% macro previous_success_ctes(attempts) %}
sync_logs_row_runs as (
    select
        sync_id,
        row_id,
        sync_run_id,
        run_started_at,
        max(case when status = 'succeeded' then success_state end) as success_state,
        max(case when status = 'succeeded' and success_state = 'present' then fields end) as success_fields
    from {{ attempts }}
    where row_id is not null
    group by sync_id, row_id, sync_run_id, run_started_at
),

sync_logs_row_runs_numbered as (
    select
        sync_id,
        row_id,
        sync_run_id,
        success_state,
        success_fields,
        count(success_state) over (
            partition by sync_id, row_id
            order by run_started_at, sync_run_id
            rows between unbounded preceding and 1 preceding
        ) as successes_before,
        case when success_state is not null then count(success_state) over (
            partition by sync_id, row_id
            order by run_started_at, sync_run_id
            rows between unbounded preceding and current row
        ) end as success_number
    from sync_logs_row_runs
),

sync_logs_previous_success as (
    select
        this_run.sync_id,
        this_run.row_id,
        this_run.sync_run_id,
        previous_run.success_state as previous_state,
        previous_run.success_fields as previous_fields
    from sync_logs_row_runs_numbered as this_run
    left join sync_logs_row_runs_numbered as previous_run
        on this_run.sync_id = previous_run.sync_id
        and this_run.row_id = previous_run.row_id
        and this_run.successes_before = previous_run.success_number
)
{% endmacro %}
