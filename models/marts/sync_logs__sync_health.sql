{#- Run health per sync: how many runs, how many succeeded, how long they take, and how many
    planned row operations actually succeeded. -#}

with runs as (
    select
        sync_id,
        sync_run_id,
        status,
        error,
        started_at,
        finished_at,
        {{ sync_logs.seconds_between('started_at', 'finished_at') }} as duration_seconds,
        coalesce(num_planned_add, 0) + coalesce(num_planned_change, 0)
            + coalesce(num_planned_remove, 0) as num_planned,
        coalesce(num_attempted_add, 0) + coalesce(num_attempted_change, 0)
            + coalesce(num_attempted_remove, 0) as num_attempted,
        coalesce(num_succeeded_add, 0) + coalesce(num_succeeded_change, 0)
            + coalesce(num_succeeded_remove, 0) as num_succeeded,
        coalesce(num_failed_add, 0) + coalesce(num_failed_change, 0)
            + coalesce(num_failed_remove, 0) as num_failed
    from {{ ref('stg_sync_logs__sync_runs') }}
),

syncs as (
    select
        sync_id,
        model_name,
        destination,
        destination_name
    from {{ ref('int_sync_logs__syncs') }}
),

latest_run as (
    {{ sync_logs.first_per_partition(
        'runs', 'sync_id', 'started_at desc, sync_run_id desc',
        ['sync_id', 'sync_run_id', 'status', 'error', 'started_at']) }}
),

aggregated as (
    select
        sync_id,
        count(*) as num_runs,
        count(case when status = 'succeeded' then 1 end) as num_succeeded_runs,
        count(case when status in ('failed', 'cancelled') then 1 end) as num_failed_runs,
        count(status) as num_runs_with_status,
        min(started_at) as first_run_started_at,
        {{ sync_logs.percentile_cont('duration_seconds', 0.5) }} as duration_p50_seconds,
        {{ sync_logs.percentile_cont('duration_seconds', 0.9) }} as duration_p90_seconds,
        {{ sync_logs.percentile_cont('duration_seconds', 0.95) }} as duration_p95_seconds,
        max(duration_seconds) as duration_max_seconds,
        sum(num_planned) as num_planned,
        sum(num_attempted) as num_attempted,
        sum(num_succeeded) as num_succeeded,
        sum(num_failed) as num_failed
    from runs
    group by sync_id
)

select
    aggregated.sync_id,
    syncs.model_name,
    syncs.destination,
    syncs.destination_name,
    aggregated.num_runs,
    aggregated.num_succeeded_runs,
    aggregated.num_failed_runs,
    case
        when aggregated.num_runs_with_status > 0
            then cast(aggregated.num_succeeded_runs as {{ sync_logs.type_double() }}) / aggregated.num_runs_with_status
    end as run_success_rate,
    aggregated.duration_p50_seconds,
    aggregated.duration_p90_seconds,
    aggregated.duration_p95_seconds,
    aggregated.duration_max_seconds,
    aggregated.num_planned,
    aggregated.num_attempted,
    aggregated.num_succeeded,
    aggregated.num_failed,
    case
        when aggregated.num_planned > 0
            then cast(aggregated.num_succeeded as {{ sync_logs.type_double() }}) / aggregated.num_planned
    end as row_success_rate,
    aggregated.first_run_started_at,
    latest_run.started_at as last_run_started_at,
    latest_run.sync_run_id as last_sync_run_id,
    latest_run.status as last_run_status,
    latest_run.error as last_run_error
from aggregated
inner join latest_run
    on aggregated.sync_id = latest_run.sync_id
left join syncs
    on aggregated.sync_id = syncs.sync_id
