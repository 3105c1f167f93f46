{#- Audience entry and exit events: when each row entered or left each sync's destination
    audience (its model or segment), in run order. Only succeeded operations move a row in or
    out, and repeated adds or removes of the same state are not events. -#}
{{ config(**sync_logs.sync_scoped_storage()) }}

with transitions as (
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
        event_type
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
    event_type,
    sync_run_id,
    run_started_at,
    event_at,
    row_number() over (
        partition by sync_id, row_id order by run_started_at, sync_run_id
    ) as event_number
from transitions
