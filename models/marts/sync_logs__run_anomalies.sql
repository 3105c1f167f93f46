{#- Per run: duration, planned row operations, failed-record rate and audience size, each
    against a trailing baseline over the sync's previous N runs (var
    `sync_logs_anomaly_baseline_runs`), with a robust score and a flag; plus the interval
    since the sync's previous run and the trailing median interval (the freshness check).

    A median over "the last N previous runs" is not a window function every warehouse has
    (PostgreSQL and Redshift have no ordered-set aggregate over a window frame, BigQuery only
    an approximate one): each run is joined to its N previous runs of the same sync (by run
    number in start order) and the baselines are grouped percentiles over that join; the MAD
    is a second grouped median of the absolute deviations from the first. N x runs rows. -#}
{%- set settings = sync_logs.monitoring_settings() -%}
{%- set n = settings['baseline_runs'] -%}
{%- set double = sync_logs.type_double() -%}

with runs as (
    select
        sync_id,
        sync_run_id,
        status,
        error,
        started_at,
        finished_at,
        behavior,
        {{ sync_logs.seconds_between('started_at', 'finished_at') }} as duration_seconds,
        coalesce(num_planned_add, 0) + coalesce(num_planned_change, 0)
            + coalesce(num_planned_remove, 0) as num_planned,
        coalesce(num_attempted_add, 0) + coalesce(num_attempted_change, 0)
            + coalesce(num_attempted_remove, 0) as num_attempted,
        coalesce(num_failed_add, 0) + coalesce(num_failed_change, 0)
            + coalesce(num_failed_remove, 0) as num_failed,
        coalesce(num_succeeded_add, 0) - coalesce(num_succeeded_remove, 0) as net_added
    from {{ ref('stg_sync_logs__sync_runs') }}
),

numbered as (
    select
        sync_id,
        sync_run_id,
        status,
        error,
        started_at,
        finished_at,
        duration_seconds,
        num_planned,
        num_attempted,
        num_failed,
        case
            when num_attempted > 0
                then cast(num_failed as {{ double }}) / num_attempted
        end as failed_record_rate,
        case
            when lower(coalesce(behavior, '')) <> 'append'
                then sum(net_added) over (
                    partition by sync_id order by started_at, sync_run_id
                    rows between unbounded preceding and current row)
        end as audience_size,
        {{ sync_logs.seconds_between(
            'lag(started_at) over (partition by sync_id order by started_at, sync_run_id)',
            'started_at') }} as interval_seconds,
        lead(started_at) over (partition by sync_id order by started_at, sync_run_id) as next_run_started_at,
        row_number() over (partition by sync_id order by started_at, sync_run_id) as run_number
    from runs
),

{#- Each run with itself and its N previous runs: the metric baselines use the previous
    runs only; the interval baseline the last N intervals up to and including this run's. -#}
pairs as (
    select
        current_run.sync_id,
        current_run.sync_run_id,
        case when previous_run.run_number < current_run.run_number then previous_run.duration_seconds end as duration_seconds,
        case when previous_run.run_number < current_run.run_number then previous_run.num_planned end as num_planned,
        case when previous_run.run_number < current_run.run_number then previous_run.failed_record_rate end as failed_record_rate,
        case when previous_run.run_number < current_run.run_number then previous_run.audience_size end as audience_size,
        case when previous_run.run_number > current_run.run_number - {{ n }} then previous_run.interval_seconds end as interval_seconds,
        case when previous_run.run_number < current_run.run_number then 1 else 0 end as is_previous
    from numbered as current_run
    inner join numbered as previous_run
        on current_run.sync_id = previous_run.sync_id
        and previous_run.run_number <= current_run.run_number
        and previous_run.run_number >= current_run.run_number - {{ n }}
),

medians as (
    select
        sync_id,
        sync_run_id,
        sum(is_previous) as num_baseline_runs,
        count(interval_seconds) as num_baseline_intervals,
        {{ sync_logs.percentile_cont('duration_seconds', 0.5) }} as duration_baseline_median,
        {{ sync_logs.percentile_cont('duration_seconds', 0.95) }} as duration_baseline_p95,
        {{ sync_logs.percentile_cont('num_planned', 0.5) }} as planned_baseline_median,
        {{ sync_logs.percentile_cont('failed_record_rate', 0.5) }} as failed_rate_baseline_median,
        {{ sync_logs.percentile_cont('audience_size', 0.5) }} as audience_baseline_median,
        {{ sync_logs.percentile_cont('interval_seconds', 0.5) }} as interval_baseline_median_seconds
    from pairs
    group by sync_id, sync_run_id
),

deviations as (
    select
        pairs.sync_id,
        pairs.sync_run_id,
        abs(pairs.duration_seconds - medians.duration_baseline_median) as duration_deviation,
        abs(pairs.num_planned - medians.planned_baseline_median) as planned_deviation,
        abs(pairs.failed_record_rate - medians.failed_rate_baseline_median) as failed_rate_deviation,
        abs(pairs.audience_size - medians.audience_baseline_median) as audience_deviation
    from pairs
    inner join medians
        on pairs.sync_id = medians.sync_id
        and pairs.sync_run_id = medians.sync_run_id
),

mads as (
    select
        sync_id,
        sync_run_id,
        {{ sync_logs.percentile_cont('duration_deviation', 0.5) }} as duration_baseline_mad,
        {{ sync_logs.percentile_cont('planned_deviation', 0.5) }} as planned_baseline_mad,
        {{ sync_logs.percentile_cont('failed_rate_deviation', 0.5) }} as failed_rate_baseline_mad,
        {{ sync_logs.percentile_cont('audience_deviation', 0.5) }} as audience_baseline_mad
    from deviations
    group by sync_id, sync_run_id
),

baselines as (
    select
        numbered.sync_id,
        numbered.sync_run_id,
        numbered.run_number,
        numbered.status,
        numbered.error,
        numbered.started_at,
        numbered.finished_at,
        numbered.next_run_started_at,
        numbered.duration_seconds,
        numbered.num_planned,
        numbered.num_attempted,
        numbered.num_failed,
        numbered.failed_record_rate,
        numbered.audience_size,
        numbered.interval_seconds,
        medians.num_baseline_runs,
        medians.num_baseline_intervals,
        {#- a baseline counts only with enough runs behind it -#}
        medians.num_baseline_runs >= {{ settings['min_baseline_runs'] }} as has_baseline,
        medians.duration_baseline_median,
        mads.duration_baseline_mad,
        medians.duration_baseline_p95,
        medians.planned_baseline_median,
        mads.planned_baseline_mad,
        medians.failed_rate_baseline_median,
        mads.failed_rate_baseline_mad,
        medians.audience_baseline_median,
        mads.audience_baseline_mad,
        case
            when medians.num_baseline_intervals >= {{ settings['min_baseline_runs'] }}
                then medians.interval_baseline_median_seconds
        end as interval_baseline_median_seconds
    from numbered
    inner join medians
        on numbered.sync_id = medians.sync_id
        and numbered.sync_run_id = medians.sync_run_id
    inner join mads
        on numbered.sync_id = mads.sync_id
        and numbered.sync_run_id = mads.sync_run_id
),

scored as (
    select
        baselines.*,
        case when has_baseline then
            {{ sync_logs.robust_score('duration_seconds', 'duration_baseline_median', 'duration_baseline_mad', 1) }}
        end as duration_score,
        case when has_baseline then
            {{ sync_logs.robust_score('num_planned', 'planned_baseline_median', 'planned_baseline_mad', 1) }}
        end as planned_score,
        case when has_baseline then
            {{ sync_logs.robust_score('failed_record_rate', 'failed_rate_baseline_median', 'failed_rate_baseline_mad', 0.01) }}
        end as failed_rate_score,
        case when has_baseline then
            {{ sync_logs.robust_score('audience_size', 'audience_baseline_median', 'audience_baseline_mad', 1) }}
        end as audience_score
    from baselines
),

flagged as (
    select
        scored.*,
        coalesce(has_baseline and duration_seconds > duration_baseline_p95 * {{ settings['slow_run_factor'] }}, false) as is_slow,
        coalesce(abs(planned_score) >= {{ settings['score_threshold'] }}, false) as is_planned_anomaly,
        coalesce(failed_rate_score >= {{ settings['score_threshold'] }}, false) as is_failed_rate_anomaly,
        coalesce(abs(audience_score) >= {{ settings['score_threshold'] }}, false) as is_audience_anomaly
    from scored
)

select
    flagged.sync_id,
    syncs.model_name,
    syncs.destination,
    flagged.sync_run_id,
    flagged.run_number,
    flagged.status as run_status,
    flagged.error as run_error,
    flagged.started_at,
    flagged.finished_at,
    flagged.num_baseline_runs,
    flagged.duration_seconds,
    flagged.duration_baseline_median,
    flagged.duration_baseline_mad,
    flagged.duration_baseline_p95,
    flagged.duration_score,
    flagged.is_slow,
    flagged.num_planned,
    flagged.planned_baseline_median,
    flagged.planned_baseline_mad,
    flagged.planned_score,
    flagged.is_planned_anomaly,
    flagged.num_attempted,
    flagged.num_failed,
    flagged.failed_record_rate,
    flagged.failed_rate_baseline_median,
    flagged.failed_rate_baseline_mad,
    flagged.failed_rate_score,
    flagged.is_failed_rate_anomaly,
    flagged.audience_size,
    flagged.audience_baseline_median,
    flagged.audience_baseline_mad,
    flagged.audience_score,
    flagged.is_audience_anomaly,
    (flagged.is_slow or flagged.is_planned_anomaly or flagged.is_failed_rate_anomaly
        or flagged.is_audience_anomaly) as is_anomaly,
    flagged.interval_seconds,
    flagged.interval_baseline_median_seconds,
    flagged.next_run_started_at
from flagged
left join {{ ref('int_sync_logs__syncs') }} as syncs
    on flagged.sync_id = syncs.sync_id
