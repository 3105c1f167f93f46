{#- Rows currently in each sync's destination (the current audience of every model or
    segment), with the payload and status of their latest attempt. A row whose removal failed
    is still a member; a row whose add never succeeded is not. -#}
{{ config(**sync_logs.sync_scoped_storage()) }}
{%- set in_changed_syncs = sync_logs.in_changed_syncs() %}

with open_intervals as (
    select
        sync_id,
        row_id,
        valid_from
    from {{ ref('sync_logs__membership_history') }}
    where valid_to is null
        and {{ in_changed_syncs }}
),

syncs as (
    select
        sync_id,
        model_id,
        model_name,
        destination,
        destination_name
    from {{ ref('int_sync_logs__syncs') }}
),

lifecycle as (
    select
        sync_id,
        row_id,
        last_succeeded_at
    from {{ ref('sync_logs__row_lifecycle') }}
    where {{ in_changed_syncs }}
),

snapshot as (
    select
        sync_id,
        row_id,
        status,
        failed_reason,
        fields,
        split_group
    from {{ ref('stg_sync_logs__sync_snapshot') }}
    where {{ in_changed_syncs }}
)

select
    open_intervals.sync_id,
    syncs.model_id,
    syncs.model_name,
    syncs.destination,
    syncs.destination_name,
    open_intervals.row_id,
    snapshot.split_group,
    open_intervals.valid_from as member_since,
    lifecycle.last_succeeded_at as last_synced_at,
    snapshot.status as latest_status,
    snapshot.failed_reason as latest_failed_reason,
    snapshot.fields
from open_intervals
left join syncs
    on open_intervals.sync_id = syncs.sync_id
left join lifecycle
    on open_intervals.sync_id = lifecycle.sync_id
    and open_intervals.row_id = lifecycle.row_id
left join snapshot
    on open_intervals.sync_id = snapshot.sync_id
    and open_intervals.row_id = snapshot.row_id
