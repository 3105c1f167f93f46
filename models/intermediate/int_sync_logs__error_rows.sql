{#- The error attempts (as in `int_sync_logs__error_attempts`) summed per run, day, destination, message and row: the small per-run
    aggregate every error mart reads instead of the changelog. One row per (sync_id,
    sync_run_id, attempted_on, destination_id, destination, failed_reason, row_key); `row_key`
    is null for the attempts without an identifier. Run-scoped: a sync's new runs are written
    alone (`sync_scoped_storage`). -#}
{{ config(**sync_logs.sync_scoped_storage(run_scoped=true)) }}

with errors as (
    select
        sync_id,
        sync_run_id,
        run_started_at,
        cast(attempted_at as date) as attempted_on,
        attempted_at,
        destination_id,
        destination,
        destination_name,
        failed_reason,
        case
            when row_id is not null
                then {{ dbt.concat(["cast(sync_id as " ~ dbt.type_string() ~ ")", "'|'", "row_id"]) }}
        end as row_key
    from {{ ref('int_sync_logs__attempts') }}
    where status in ('failed', 'invalid', 'aborted')
        and failed_reason is not null
        and {{ sync_logs.in_changed_syncs() }}
)

select
    sync_id,
    sync_run_id,
    min(run_started_at) as run_started_at,
    attempted_on,
    destination_id,
    destination,
    max(destination_name) as destination_name,
    failed_reason,
    row_key,
    count(*) as num_attempts,
    min(attempted_at) as first_attempted_at,
    max(attempted_at) as last_attempted_at
from errors
group by sync_id, sync_run_id, attempted_on, destination_id, destination, failed_reason, row_key
