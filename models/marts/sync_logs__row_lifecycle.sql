{#- When each row first reached its destination, when it was last updated or removed there,
    and whether it is there now. -#}
{{ config(**sync_logs.sync_scoped_storage()) }}
{%- set in_changed_syncs = sync_logs.in_changed_syncs() %}

with row_runs as (
    select
        sync_id,
        row_id,
        sync_run_id,
        run_started_at,
        attempted_at,
        op_type,
        status,
        payload_changed
    from {{ ref('int_sync_logs__row_runs') }}
    where {{ in_changed_syncs }}
),

transitions as (
    select
        sync_id,
        row_id,
        event_type,
        event_at
    from {{ ref('int_sync_logs__membership_transitions') }}
    where {{ in_changed_syncs }}
),

syncs as (
    select
        sync_id,
        model_name,
        destination
    from {{ ref('int_sync_logs__syncs') }}
),

from_runs as (
    select
        sync_id,
        row_id,
        min(attempted_at) as first_planned_at,
        max(attempted_at) as last_planned_at,
        max(case when status = 'succeeded' and op_type in ('added', 'changed') then attempted_at end) as last_updated_at,
        max(case when status = 'succeeded' then attempted_at end) as last_succeeded_at,
        count(*) as num_runs, -- one row_runs row per run
        count(case when status = 'succeeded' and op_type = 'changed' and coalesce(payload_changed, true) then 1 end)
            as num_changes
    from row_runs
    group by sync_id, row_id
),

from_transitions as (
    select
        sync_id,
        row_id,
        min(case when event_type = 'entered' then event_at end) as first_added_at,
        max(case when event_type = 'entered' then event_at end) as last_added_at,
        max(case when event_type = 'exited' then event_at end) as last_removed_at,
        count(case when event_type = 'entered' then 1 end) as num_times_added,
        count(case when event_type = 'exited' then 1 end) as num_times_removed
    from transitions
    group by sync_id, row_id
)

select
    from_runs.sync_id,
    syncs.model_name,
    syncs.destination,
    from_runs.row_id,
    from_runs.first_planned_at,
    from_runs.last_planned_at,
    from_transitions.first_added_at,
    from_runs.last_updated_at,
    from_transitions.last_removed_at,
    from_runs.last_succeeded_at,
    coalesce(from_transitions.num_times_added, 0) as num_times_added,
    coalesce(from_transitions.num_times_removed, 0) as num_times_removed,
    from_runs.num_runs,
    from_runs.num_changes,
    case
        when coalesce(from_transitions.num_times_added, 0) > coalesce(from_transitions.num_times_removed, 0)
            then true
        else false
    end as is_in_destination
from from_runs
left join from_transitions
    on from_runs.sync_id = from_transitions.sync_id
    and from_runs.row_id = from_transitions.row_id
left join syncs
    on from_runs.sync_id = syncs.sync_id
