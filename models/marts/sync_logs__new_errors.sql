{#- Errors that first appeared in their sync's latest run: what just started going wrong (from
    the per-run error aggregate `int_sync_logs__error_rows`). -#}

with errors as (
    select
        error_rows.sync_id,
        error_rows.sync_run_id,
        error_rows.run_started_at,
        error_rows.failed_reason,
        categories.error_category,
        error_rows.row_key,
        error_rows.num_attempts
    from {{ ref('int_sync_logs__error_rows') }} as error_rows
    left join {{ ref('int_sync_logs__error_categories') }} as categories
        on error_rows.failed_reason = categories.failed_reason
),

runs as (
    select
        sync_id,
        sync_run_id,
        started_at,
        model_name
    from {{ ref('stg_sync_logs__sync_runs') }}
),

latest_run as (
    {{ sync_logs.first_per_partition(
        'runs', 'sync_id', 'started_at desc, sync_run_id desc',
        ['sync_id', 'sync_run_id', 'started_at', 'model_name']) }}
),

first_seen as (
    {{ sync_logs.first_per_partition(
        'errors', 'sync_id, failed_reason', 'run_started_at, sync_run_id',
        ['sync_id', 'failed_reason', 'sync_run_id']) }}
),

in_latest_run as (
    select
        errors.sync_id,
        errors.failed_reason,
        errors.error_category,
        cast(sum(errors.num_attempts) as {{ dbt.type_bigint() }}) as num_attempts,
        count(distinct errors.row_key) as num_rows
    from errors
    inner join latest_run
        on errors.sync_id = latest_run.sync_id
        and errors.sync_run_id = latest_run.sync_run_id
    group by errors.sync_id, errors.failed_reason, errors.error_category
)

select
    in_latest_run.sync_id,
    latest_run.model_name,
    latest_run.sync_run_id,
    latest_run.started_at as run_started_at,
    in_latest_run.failed_reason,
    in_latest_run.error_category,
    in_latest_run.num_attempts,
    in_latest_run.num_rows
from in_latest_run
inner join latest_run
    on in_latest_run.sync_id = latest_run.sync_id
inner join first_seen
    on in_latest_run.sync_id = first_seen.sync_id
    and in_latest_run.failed_reason = first_seen.failed_reason
where first_seen.sync_run_id = latest_run.sync_run_id
