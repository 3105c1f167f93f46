{#- One row per (sync, run, error class) of the run error history `int_sync_logs__run_errors`:
    the class's distinct rows summed over its messages, its least message, and its top message
    (most attempts, then least message) with that message's attempts, so that a run's top
    message is the top of its classes' tops. What `sync_logs__incidents` reads instead of a row
    per message. Every message is classified here with the current taxonomy (macro
    `error_taxonomy`), those of runs that retention has pruned from the changelog too.
    Run-scoped: a sync's new runs are written alone; a sync with a changed or gone run (a
    reloaded or pruned run, which the history keeps) or a changed taxonomy is rewritten from
    the history (`sync_scoped_storage`). -#}
{{ config(**sync_logs.sync_scoped_storage(run_scoped=true)) }}

with run_errors as (
    select
        sync_id,
        sync_run_id,
        failed_reason,
        num_attempts,
        num_rows
    from {{ ref('int_sync_logs__run_errors') }}
    where {{ sync_logs.in_changed_syncs() }}
),

taxonomy as (
    {{ sync_logs.error_taxonomy('select failed_reason from run_errors') | indent(4) }}
),

classified as (
    select
        run_errors.sync_id,
        run_errors.sync_run_id,
        taxonomy.error_class,
        run_errors.failed_reason,
        run_errors.num_attempts,
        run_errors.num_rows
    from run_errors
    inner join taxonomy
        on run_errors.failed_reason = taxonomy.failed_reason
),

summed as (
    select
        sync_id,
        sync_run_id,
        error_class,
        sum(num_rows) as num_rows,
        min(failed_reason) as failed_reason
    from classified
    group by sync_id, sync_run_id, error_class
),

top_reasons as (
    {{ sync_logs.first_per_partition(
        'classified', 'sync_id, sync_run_id, error_class', 'num_attempts desc, failed_reason',
        ['sync_id', 'sync_run_id', 'error_class', 'failed_reason', 'num_attempts']) }}
)

select
    summed.sync_id,
    summed.sync_run_id,
    summed.error_class,
    cast(summed.num_rows as {{ dbt.type_bigint() }}) as num_rows,
    summed.failed_reason,
    top_reasons.failed_reason as top_failed_reason,
    top_reasons.num_attempts as top_num_attempts
from summed
inner join top_reasons
    on summed.sync_id = top_reasons.sync_id
    and summed.sync_run_id = top_reasons.sync_run_id
    and summed.error_class = top_reasons.error_class
