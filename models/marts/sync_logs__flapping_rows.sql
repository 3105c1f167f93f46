{#- Rows that keep entering and leaving their destination, or keep changing: a sign of an
    unstable model (a timestamp in the payload, a flickering segment condition). A row is
    listed when it left its destination at least `sync_logs_flapping_min_cycles` times or
    its payload changed in at least `sync_logs_flapping_min_changes` runs. -#}
{{ config(**sync_logs.sync_scoped_storage()) }}
{%- set in_changed_syncs = sync_logs.in_changed_syncs() %}

with row_runs as (
    select
        sync_id,
        row_id,
        sync_run_id,
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
        event_type
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

changes as (
    select
        sync_id,
        row_id,
        count(*) as num_runs, -- one row_runs row per run
        count(case when status = 'succeeded' and op_type = 'changed' and coalesce(payload_changed, true) then 1 end)
            as num_changes,
        min(attempted_at) as first_seen_at,
        max(attempted_at) as last_seen_at
    from row_runs
    group by sync_id, row_id
),

cycles as (
    select
        sync_id,
        row_id,
        count(case when event_type = 'entered' then 1 end) as num_entries,
        count(case when event_type = 'exited' then 1 end) as num_exits
    from transitions
    group by sync_id, row_id
),

measured as (
    select
        changes.sync_id,
        changes.row_id,
        coalesce(cycles.num_entries, 0) as num_entries,
        coalesce(cycles.num_exits, 0) as num_exits,
        changes.num_changes,
        changes.num_runs,
        changes.first_seen_at,
        changes.last_seen_at
    from changes
    left join cycles
        on changes.sync_id = cycles.sync_id
        and changes.row_id = cycles.row_id
)

select
    measured.sync_id,
    syncs.model_name,
    syncs.destination,
    measured.row_id,
    measured.num_entries,
    measured.num_exits as num_add_remove_cycles,
    measured.num_changes,
    measured.num_runs,
    cast(measured.num_exits + measured.num_changes as {{ sync_logs.type_double() }})
        / measured.num_runs as flaps_per_run,
    measured.first_seen_at,
    measured.last_seen_at
from measured
left join syncs
    on measured.sync_id = syncs.sync_id
where measured.num_exits >= {{ var('sync_logs_flapping_min_cycles') }}
    or measured.num_changes >= {{ var('sync_logs_flapping_min_changes') }}
