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

{#- each attempt with its row's totals, newest first: one pass over the attempts -#}
{%- set newest_first = 'partition by sync_id, row_id '
    ~ 'order by run_started_at desc, sync_run_id desc, ' ~ sync_logs.row_version_first() %}
{%- set whole_row = 'over (' ~ newest_first ~ ' rows between unbounded preceding and unbounded following)' %}
ranked as (
    select
        sync_id,
        row_id,
        sync_run_id,
        op_type,
        status,
        failed_reason,
        attempted_at,
        row_number() over ({{ newest_first }}) as attempt_rank,
        count(*) {{ whole_row }} as num_attempts,
        count(case when status = 'succeeded' then 1 end) {{ whole_row }} as num_succeeded,
        count(case when status = 'failed' then 1 end) {{ whole_row }} as num_failed,
        count(case when status = 'invalid' then 1 end) {{ whole_row }} as num_invalid,
        count(case when status = 'aborted' then 1 end) {{ whole_row }} as num_aborted,
        count(case when op_type = 'added' then 1 end) {{ whole_row }} as num_added,
        count(case when op_type = 'changed' then 1 end) {{ whole_row }} as num_changed,
        count(case when op_type = 'removed' then 1 end) {{ whole_row }} as num_removed,
        min(attempted_at) {{ whole_row }} as first_attempted_at,
        max(case when status = 'succeeded' then attempted_at end) {{ whole_row }} as last_succeeded_at,
        max(case when status = 'failed' then attempted_at end) {{ whole_row }} as last_failed_at
    from attempts
)

select
    ranked.sync_id,
    syncs.model_name,
    syncs.destination,
    ranked.row_id,
    ranked.num_attempts,
    ranked.num_succeeded,
    ranked.num_failed,
    ranked.num_invalid,
    ranked.num_aborted,
    ranked.num_added,
    ranked.num_changed,
    ranked.num_removed,
    ranked.first_attempted_at,
    ranked.attempted_at as last_attempted_at,
    ranked.sync_run_id as last_sync_run_id,
    ranked.op_type as last_op_type,
    ranked.status as last_status,
    ranked.failed_reason as last_failed_reason,
    ranked.last_succeeded_at,
    ranked.last_failed_at,
    ranked.num_failed > 0 as has_failed
from ranked
left join syncs
    on ranked.sync_id = syncs.sync_id
where ranked.attempt_rank = 1
