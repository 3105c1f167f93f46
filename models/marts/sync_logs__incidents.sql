{#- One row per (sync, incident): a condition that crossed a threshold in a run and lasted
    until a later run was healthy for that condition (gaps and islands over each sync's runs
    in start order, per kind and error class). Kinds:
    - `run_failed`: the run failed or was cancelled; healthy: a succeeded run (runs with
      no status, e.g. Census's or unfinished ones, neither open nor resolve);
    - `failed_records`: failed-record rate (failed / attempted) at or over
      `sync_logs_failed_rate_warning` (critical at `sync_logs_failed_rate_critical`);
      runs with no attempted record are skipped;
    - `new_error_class`: errors of a class new to the sync. Per (sync, error class), over
      the sync's runs with attempts (or with errors of that class) in start order, a run's
      class is new when the run has at least `sync_logs_anomaly_min_baseline_runs` earlier
      runs and none of its last `sync_logs_anomaly_baseline_runs` earlier runs had that
      class: a sync's first runs never open one, and a class that comes back within the
      baseline window is not new. An incident opens at a run whose class is new, lasts over
      the consecutive runs that keep the class, and resolves at the first later run with
      attempts without it (presence islands: the island is an incident iff its first run
      is new);
    - `slow_run`: duration over the trailing p95 x `sync_logs_slow_run_factor`;
    - `planned_operations`, `audience_size`: robust score against the trailing median at
      or over `sync_logs_anomaly_score_threshold` either way (drop or spike);
    - `stale`: no run for `sync_logs_stale_factor` x the sync's median interval between
      runs, counted to the next run or, for the latest run, to the reference time.
    The id hashes (sync, kind, error class, opening run): the same incident keeps its id
    across builds, incremental or full. -#}
{%- set settings = sync_logs.monitoring_settings() -%}
{%- set string = dbt.type_string() -%}
{%- set bigint = dbt.type_bigint() -%}
{%- set critical_classes = settings['critical_error_classes'] -%}
{%- set gap_end = 'coalesce(next_run_started_at, ' ~ sync_logs.monitoring_reference_time() ~ ')' -%}

with runs as (
    select
        sync_id,
        sync_run_id,
        run_status,
        run_error,
        started_at,
        finished_at,
        num_baseline_runs,
        num_planned,
        num_attempted,
        num_failed,
        failed_record_rate,
        duration_seconds,
        duration_baseline_p95,
        is_slow,
        planned_score,
        planned_baseline_median,
        is_planned_anomaly,
        audience_size,
        audience_score,
        audience_baseline_median,
        is_audience_anomaly,
        interval_baseline_median_seconds,
        next_run_started_at
    from {{ ref('sync_logs__run_anomalies') }}
),

run_error_classes as (
    select
        sync_id,
        sync_run_id,
        error_class,
        num_rows,
        failed_reason
    from {{ ref('int_sync_logs__run_error_classes') }}
),

class_top_reasons as (
    select
        sync_id,
        sync_run_id,
        top_failed_reason as failed_reason,
        top_num_attempts as num_attempts
    from {{ ref('int_sync_logs__run_error_classes') }}
),

{#- a run's top message (most attempts, then least message): the top of its classes' tops -#}
run_top_reasons as (
    {{ sync_logs.first_per_partition(
        'class_top_reasons', 'sync_id, sync_run_id', 'num_attempts desc, failed_reason',
        ['sync_id', 'sync_run_id', 'failed_reason']) }}
),

sync_error_classes as (
    select distinct
        sync_id,
        error_class
    from run_error_classes
),

class_runs as (
    -- one row per (sync, error class, run): the sync's runs with attempts, and the runs with
    -- errors of that class
    select
        runs.sync_id,
        runs.sync_run_id,
        runs.started_at,
        runs.finished_at,
        sync_error_classes.error_class,
        case when run_error_classes.sync_run_id is not null then 1 else 0 end as is_present,
        run_error_classes.num_rows,
        run_error_classes.failed_reason
    from runs
    inner join sync_error_classes
        on runs.sync_id = sync_error_classes.sync_id
    left join run_error_classes
        on runs.sync_id = run_error_classes.sync_id
        and runs.sync_run_id = run_error_classes.sync_run_id
        and sync_error_classes.error_class = run_error_classes.error_class
    where run_error_classes.sync_run_id is not null
        or runs.num_attempted > 0
),

class_baselines as (
    select
        sync_id,
        sync_run_id,
        started_at,
        finished_at,
        error_class,
        is_present,
        num_rows,
        failed_reason,
        row_number() over (
            partition by sync_id, error_class order by started_at, sync_run_id) - 1 as num_earlier_runs,
        coalesce(sum(is_present) over (
            partition by sync_id, error_class order by started_at, sync_run_id
            rows between {{ settings['baseline_runs'] }} preceding and 1 preceding), 0) as num_baseline_presences,
        case
            when is_present = 1
                and coalesce(lag(is_present) over (
                    partition by sync_id, error_class order by started_at, sync_run_id), 0) = 0
                then 1
            else 0
        end as is_island_start
    from class_runs
),

class_island_numbers as (
    select
        sync_id,
        sync_run_id,
        started_at,
        finished_at,
        error_class,
        is_present,
        num_rows,
        failed_reason,
        -- new: enough earlier runs, and the class in none of the baseline window's runs
        case
            when is_island_start = 1
                and num_earlier_runs >= {{ settings['min_baseline_runs'] }}
                and num_baseline_presences = 0
                then 1
            else 0
        end as is_new_island_start,
        sum(is_island_start) over (
            partition by sync_id, error_class order by started_at, sync_run_id
            rows between unbounded preceding and current row) as island_number
    from class_baselines
),

class_islands as (
    select
        sync_id,
        sync_run_id,
        started_at,
        finished_at,
        error_class,
        is_present,
        num_rows,
        failed_reason,
        max(is_new_island_start) over (
            partition by sync_id, error_class, island_number) as is_island_new
    from class_island_numbers
),

observations as (
    select
        sync_id,
        sync_run_id,
        started_at,
        finished_at,
        'run_failed' as kind,
        '' as error_class,
        case when run_status in ('failed', 'cancelled') then 1 else 0 end as is_unhealthy,
        'critical' as severity,
        num_planned - num_attempted + num_failed as rows_affected,
        run_error as failed_reason
    from runs
    where run_status in ('succeeded', 'failed', 'cancelled')

    union all

    select
        runs.sync_id,
        runs.sync_run_id,
        runs.started_at,
        runs.finished_at,
        'failed_records' as kind,
        '' as error_class,
        case when runs.failed_record_rate >= {{ settings['failed_rate_warning'] }} then 1 else 0 end as is_unhealthy,
        case
            when runs.failed_record_rate >= {{ settings['failed_rate_critical'] }} then 'critical'
            else 'warning'
        end as severity,
        runs.num_failed as rows_affected,
        run_top_reasons.failed_reason
    from runs
    left join run_top_reasons
        on runs.sync_id = run_top_reasons.sync_id
        and runs.sync_run_id = run_top_reasons.sync_run_id
    where runs.failed_record_rate is not null

    union all

    select
        sync_id,
        sync_run_id,
        started_at,
        finished_at,
        'slow_run' as kind,
        '' as error_class,
        case when is_slow then 1 else 0 end as is_unhealthy,
        'warning' as severity,
        cast(null as {{ bigint }}) as rows_affected,
        cast(null as {{ string }}) as failed_reason
    from runs
    where duration_seconds is not null
        and duration_baseline_p95 is not null
        and num_baseline_runs >= {{ settings['min_baseline_runs'] }}

    union all

    select
        sync_id,
        sync_run_id,
        started_at,
        finished_at,
        'planned_operations' as kind,
        '' as error_class,
        case when is_planned_anomaly then 1 else 0 end as is_unhealthy,
        'warning' as severity,
        cast(round(abs(num_planned - planned_baseline_median)) as {{ bigint }}) as rows_affected,
        cast(null as {{ string }}) as failed_reason
    from runs
    where planned_score is not null

    union all

    select
        sync_id,
        sync_run_id,
        started_at,
        finished_at,
        'audience_size' as kind,
        '' as error_class,
        case when is_audience_anomaly then 1 else 0 end as is_unhealthy,
        'warning' as severity,
        cast(round(abs(audience_size - audience_baseline_median)) as {{ bigint }}) as rows_affected,
        cast(null as {{ string }}) as failed_reason
    from runs
    where audience_score is not null

    union all

    select
        sync_id,
        sync_run_id,
        started_at,
        finished_at,
        'new_error_class' as kind,
        error_class,
        case when is_present = 1 and is_island_new = 1 then 1 else 0 end as is_unhealthy,
        case
            when error_class in ({{ "'" ~ (critical_classes | join("', '")) ~ "'" if critical_classes else "''" }})
                then 'critical'
            else 'warning'
        end as severity,
        num_rows as rows_affected,
        failed_reason
    from class_islands
),

openings as (
    select
        sync_id,
        sync_run_id,
        started_at,
        finished_at,
        kind,
        error_class,
        is_unhealthy,
        severity,
        rows_affected,
        failed_reason,
        case
            when is_unhealthy = 1
                and coalesce(lag(is_unhealthy) over (
                    partition by sync_id, kind, error_class order by started_at, sync_run_id), 0) = 0
                then 1
            else 0
        end as is_opening
    from observations
),

islands as (
    select
        sync_id,
        sync_run_id,
        started_at,
        finished_at,
        kind,
        error_class,
        is_unhealthy,
        severity,
        rows_affected,
        failed_reason,
        is_opening,
        sum(is_opening) over (
            partition by sync_id, kind, error_class order by started_at, sync_run_id
            rows between unbounded preceding and current row) as incident_number
    from openings
),

run_incidents as (
    select
        sync_id,
        kind,
        error_class,
        max(case when is_opening = 1 then sync_run_id end) as opened_sync_run_id,
        min(case when is_unhealthy = 1 then started_at end) as opened_at,
        max(case when is_unhealthy = 1 then started_at end) as last_seen_at,
        min(case when is_unhealthy = 0 then coalesce(finished_at, started_at) end) as resolved_at,
        sum(is_unhealthy) as runs_affected,
        sum(case when is_unhealthy = 1 then rows_affected end) as rows_affected,
        max(case when is_unhealthy = 1 and severity = 'critical' then 1 else 0 end) as is_critical,
        max(case when is_opening = 1 then failed_reason end) as failed_reason
    from islands
    where incident_number > 0
    group by sync_id, kind, error_class, incident_number
),

gaps as (
    select
        sync_id,
        sync_run_id,
        started_at,
        next_run_started_at,
        interval_baseline_median_seconds,
        {{ sync_logs.seconds_between('started_at', gap_end) }} as gap_seconds
    from runs
    where interval_baseline_median_seconds is not null
),

stale_incidents as (
    select
        sync_id,
        'stale' as kind,
        '' as error_class,
        sync_run_id as opened_sync_run_id,
        {{ sync_logs.add_seconds('started_at', settings['stale_factor'] ~ ' * interval_baseline_median_seconds') }} as opened_at,
        coalesce(next_run_started_at, {{ sync_logs.monitoring_reference_time() }}) as last_seen_at,
        next_run_started_at as resolved_at,
        0 as runs_affected,
        cast(null as {{ bigint }}) as rows_affected,
        0 as is_critical,
        cast(null as {{ string }}) as failed_reason
    from gaps
    where {{ sync_logs.stale_condition('gap_seconds', 'interval_baseline_median_seconds') }}
),

incidents as (
    select
        sync_id,
        kind,
        error_class,
        opened_sync_run_id,
        opened_at,
        last_seen_at,
        resolved_at,
        runs_affected,
        rows_affected,
        is_critical,
        failed_reason
    from run_incidents

    union all

    select
        sync_id,
        kind,
        error_class,
        opened_sync_run_id,
        opened_at,
        last_seen_at,
        resolved_at,
        runs_affected,
        rows_affected,
        is_critical,
        failed_reason
    from stale_incidents
)

select
    {{ dbt.hash(dbt.concat([
        'cast(incidents.sync_id as ' ~ string ~ ')', "'|'", 'incidents.kind', "'|'",
        'incidents.error_class', "'|'", 'cast(incidents.opened_sync_run_id as ' ~ string ~ ')'])) }} as incident_id,
    incidents.sync_id,
    syncs.model_name,
    syncs.destination,
    incidents.kind,
    nullif(incidents.error_class, '') as error_class,
    case when incidents.is_critical = 1 then 'critical' else 'warning' end as severity,
    case when incidents.resolved_at is null then 'open' else 'resolved' end as status,
    incidents.opened_at,
    incidents.last_seen_at,
    incidents.resolved_at,
    incidents.opened_sync_run_id,
    incidents.runs_affected,
    incidents.rows_affected,
    incidents.failed_reason
from incidents
left join {{ ref('int_sync_logs__syncs') }} as syncs
    on incidents.sync_id = syncs.sync_id
