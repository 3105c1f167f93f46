{#- Operations and errors per row: how often each row was attempted, how often that
    succeeded or failed, and what happened last. -#}
{{ config(**sync_logs.sync_scoped_storage()) }}

with attempts as (
    select
        log_id,
        sync_id,
        sync_run_id,
        row_id,
        op_type,
        status,
        failed_reason,
        attempted_at,
        run_started_at
    from {{ ref('int_sync_logs__attempts') }}
    where row_id is not null
        and {{ sync_logs.in_changed_syncs() }}
),

syncs as (
    select
        sync_id,
        model_name,
        destination
    from {{ ref('int_sync_logs__syncs') }}
),

counted as (
    select
        sync_id,
        row_id,
        count(*) as num_attempts,
        count(case when status = 'succeeded' then 1 end) as num_succeeded,
        count(case when status = 'failed' then 1 end) as num_failed,
        count(case when status = 'invalid' then 1 end) as num_invalid,
        count(case when status = 'aborted' then 1 end) as num_aborted,
        count(case when op_type = 'added' then 1 end) as num_added,
        count(case when op_type = 'changed' then 1 end) as num_changed,
        count(case when op_type = 'removed' then 1 end) as num_removed,
        min(attempted_at) as first_attempted_at,
        max(case when status = 'succeeded' then attempted_at end) as last_succeeded_at,
        max(case when status = 'failed' then attempted_at end) as last_failed_at,
        {{ sync_logs.boolean_or("status = 'failed'") }} as has_failed
    from attempts
    group by sync_id, row_id
),

last_attempt as (
    {{ sync_logs.first_per_partition(
        'attempts', 'sync_id, row_id', 'run_started_at desc, sync_run_id desc, attempted_at desc, log_id desc',
        ['sync_id', 'row_id', 'sync_run_id', 'op_type', 'status', 'failed_reason', 'attempted_at']) }}
)

select
    counted.sync_id,
    syncs.model_name,
    syncs.destination,
    counted.row_id,
    counted.num_attempts,
    counted.num_succeeded,
    counted.num_failed,
    counted.num_invalid,
    counted.num_aborted,
    counted.num_added,
    counted.num_changed,
    counted.num_removed,
    counted.first_attempted_at,
    last_attempt.attempted_at as last_attempted_at,
    last_attempt.sync_run_id as last_sync_run_id,
    last_attempt.op_type as last_op_type,
    last_attempt.status as last_status,
    last_attempt.failed_reason as last_failed_reason,
    counted.last_succeeded_at,
    counted.last_failed_at,
    counted.has_failed
from counted
inner join last_attempt
    on counted.sync_id = last_attempt.sync_id
    and counted.row_id = last_attempt.row_id
left join syncs
    on counted.sync_id = syncs.sync_id
