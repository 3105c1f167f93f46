{#- Rows that keep entering and leaving their destination, or keep changing: a sign of an
    unstable model (a timestamp in the payload, a flickering segment condition). A row is
    listed when it left its destination at least `sync_logs_flapping_min_cycles` times or
    its payload changed in at least `sync_logs_flapping_min_changes` runs. Its counts are the
    row's lifecycle (`sync_logs__row_lifecycle`). -#}
{{ config(**sync_logs.sync_scoped_storage()) }}

select
    sync_id,
    model_name,
    destination,
    row_id,
    num_times_added as num_entries,
    num_times_removed as num_add_remove_cycles,
    num_changes,
    num_runs,
    cast(num_times_removed + num_changes as {{ sync_logs.type_double() }}) / num_runs as flaps_per_run,
    first_planned_at as first_seen_at,
    last_planned_at as last_seen_at
from {{ ref('sync_logs__row_lifecycle') }}
where {{ sync_logs.in_changed_syncs() }}
    and (
        num_times_removed >= {{ var('sync_logs_flapping_min_cycles') }}
        or num_changes >= {{ var('sync_logs_flapping_min_changes') }}
    )
