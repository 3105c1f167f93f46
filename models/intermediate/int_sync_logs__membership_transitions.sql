{#- The moments a row's presence in the destination changed: among each row's succeeded runs
    in run order (run start, then run id; never file or JSON position), those whose state
    (present after an add or change, absent after a remove) differs from the previous
    succeeded state, where "no earlier success" counts as absent. -#}
{{ config(**sync_logs.sync_scoped_storage()) }}

with succeeded as (
    select
        sync_id,
        row_id,
        sync_run_id,
        run_started_at,
        attempted_at,
        model_id,
        model_name,
        split_group,
        destination,
        case when op_type = 'removed' then 'absent' else 'present' end as state
    from {{ ref('int_sync_logs__row_runs') }}
    where status = 'succeeded'
        and {{ sync_logs.in_changed_syncs() }}
),

with_previous as (
    select
        sync_id,
        row_id,
        sync_run_id,
        run_started_at,
        attempted_at,
        model_id,
        model_name,
        split_group,
        destination,
        state,
        coalesce(
            lag(state) over (partition by sync_id, row_id order by run_started_at, sync_run_id),
            'absent'
        ) as previous_state
    from succeeded
)

select
    sync_id,
    row_id,
    sync_run_id,
    run_started_at,
    attempted_at as event_at,
    model_id,
    model_name,
    split_group,
    destination,
    case when state = 'present' then 'entered' else 'exited' end as event_type
from with_previous
where state <> previous_state
