{#- One row per (sync, row, run) in which the row was planned: its last valid attempt in that
    run. Invalid attempts (null or duplicated identifiers) are never applied, so they are left
    out; rows without an identifier cannot be followed across runs. Keys and states only: the
    payload stays in the changelog, found by `log_id`. Run-scoped: a sync's new runs are
    written alone (`sync_scoped_storage`). -#}
{{ config(**sync_logs.sync_scoped_storage(run_scoped=true)) }}

with valid_attempts as (
    select
        log_id,
        sync_id,
        sync_run_id,
        row_id,
        op_type,
        status,
        failed_reason,
        split_group,
        payload_changed,
        attempted_at,
        run_started_at,
        model_id,
        model_name,
        destination,
        destination_id
    from {{ ref('int_sync_logs__attempts') }}
    where {{ sync_logs.row_version_candidate() }}
        and {{ sync_logs.in_changed_syncs() }}
)

{{ sync_logs.first_per_partition(
    'valid_attempts',
    'sync_id, row_id, sync_run_id',
    sync_logs.row_version_first(),
    ['log_id', 'sync_id', 'sync_run_id', 'row_id', 'op_type', 'status', 'failed_reason',
     'split_group', 'payload_changed', 'attempted_at', 'run_started_at', 'model_id', 'model_name',
     'destination', 'destination_id']) }}
