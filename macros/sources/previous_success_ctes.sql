{#- For the SQL source modes that lack our derived columns: renders CTEs (to follow a comma in
    a `with` list) ending in `sync_logs_previous_success`, one row per (sync_id, row_id,
    sync_run_id) of `attempts` with the row's last succeeded state *before* that run:
    `previous_state` ('present' or 'removed', null if it never succeeded) and
    `previous_fields` (the payload of that state). The same rule as `assign_op_types` in
    sync_logs.canonical.changelog: runs are ordered by (run_started_at, sync_run_id), never
    by load order; the state a run leaves is its *last* succeeded attempt of the row, in
    `latest_first` order (a SQL order-by list, latest attempt first), so a removal followed by
    an upsert in one run leaves the row present. `attempts` must have sync_id, sync_run_id,
    run_started_at, row_id, status, success_state ('present' or 'removed': 'removed' exactly
    when `base_op_type` is 'removed'), fields, and the columns `latest_first` names. -#}
{% macro previous_success_ctes(attempts, latest_first) %}
sync_logs_last_successes as (
    select
        sync_id,
        row_id,
        sync_run_id,
        success_state,
        success_fields
    from (
        select
            sync_id,
            row_id,
            sync_run_id,
            success_state,
            fields as success_fields,
            row_number() over (
                partition by sync_id, row_id, sync_run_id
                order by {{ latest_first }}
            ) as sync_logs_attempt_number
        from {{ attempts }}
        where status = 'succeeded' and row_id is not null
    ) as sync_logs_successes
    where sync_logs_attempt_number = 1
),

sync_logs_row_runs as (
    select distinct
        sync_logs_attempts.sync_id,
        sync_logs_attempts.row_id,
        sync_logs_attempts.sync_run_id,
        sync_logs_attempts.run_started_at,
        sync_logs_last_successes.success_state,
        case
            when sync_logs_last_successes.success_state = 'present'
                then sync_logs_last_successes.success_fields
        end as success_fields
    from {{ attempts }} as sync_logs_attempts
    left join sync_logs_last_successes
        on sync_logs_attempts.sync_id = sync_logs_last_successes.sync_id
        and sync_logs_attempts.row_id = sync_logs_last_successes.row_id
        and sync_logs_attempts.sync_run_id = sync_logs_last_successes.sync_run_id
    where sync_logs_attempts.row_id is not null
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
