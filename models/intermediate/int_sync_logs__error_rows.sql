{#- The error attempts (as in `int_sync_logs__error_attempts`) summed per run, day, destination, message and row: the small per-run
    aggregate every error mart reads instead of the changelog. One row per (sync_id,
    sync_run_id, attempted_on, destination_id, destination, failed_reason, row_key); `row_key`
    is null for the attempts without an identifier. Each row carries its message's taxonomy
    (macro `error_taxonomy`), classified as its run is written: only the messages of the runs a
    build writes go through the patterns (their fingerprints hold the taxonomy, so a change to
    it rewrites every row). Run-scoped: a sync's new runs are written alone
    (`sync_scoped_storage`). Layout 2: the taxonomy columns (`incremental_state_key`). -#}
{{ config(sync_logs_layout=2, **sync_logs.sync_scoped_storage(run_scoped=true)) }}

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
),

summed as (
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
),

taxonomy as (
    {{ sync_logs.error_taxonomy('select failed_reason from summed') | indent(4) }}
)

select
    summed.sync_id,
    summed.sync_run_id,
    summed.run_started_at,
    summed.attempted_on,
    summed.destination_id,
    summed.destination,
    summed.destination_name,
    summed.failed_reason,
    summed.row_key,
    summed.num_attempts,
    summed.first_attempted_at,
    summed.last_attempted_at,
    taxonomy.error_category,
    taxonomy.error_class,
    taxonomy.http_status,
    taxonomy.is_retryable,
    taxonomy.message_template
from summed
inner join taxonomy
    on summed.failed_reason = taxonomy.failed_reason
