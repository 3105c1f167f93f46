{#- Membership as validity intervals: a row belonged to the sync's audience from `valid_from`
    (inclusive) to `valid_to` (exclusive; null while still a member). "Who was in S at T" is
    `valid_from <= T and (valid_to > T or valid_to is null)`: see macro `members_at`. -#}
{{ config(**sync_logs.sync_scoped_storage()) }}

with events as (
    select
        sync_id,
        row_id,
        sync_run_id,
        run_started_at,
        event_at,
        model_id,
        model_name,
        split_group,
        destination,
        event_type,
        lead(event_at) over (
            partition by sync_id, row_id order by run_started_at, sync_run_id
        ) as next_event_at,
        lead(sync_run_id) over (
            partition by sync_id, row_id order by run_started_at, sync_run_id
        ) as next_sync_run_id
    from {{ ref('int_sync_logs__membership_transitions') }}
    where {{ sync_logs.in_changed_syncs() }}
)

select
    sync_id,
    model_id,
    model_name,
    split_group,
    destination,
    row_id,
    event_at as valid_from,
    next_event_at as valid_to,
    sync_run_id as entered_sync_run_id,
    next_sync_run_id as exited_sync_run_id,
    case when next_event_at is null then true else false end as is_current
from events
where event_type = 'entered'
