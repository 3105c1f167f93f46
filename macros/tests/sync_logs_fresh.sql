{#- Generic data test: every sync has run within `factor` (default var
    `sync_logs_stale_factor`) times its median interval between runs, counted to now (or
    var `sync_logs_reference_time`) when the test runs. One failing row per stale sync: its
    latest run, when it started, the median interval and the hours since. `model` is
    `sync_logs__run_anomalies` (or a relation with its columns `sync_id`, `sync_run_id`,
    `started_at`, `next_run_started_at`, `interval_baseline_median_seconds`). Set its
    severity to `warn` or `error` as any test's. -#}
{% test sync_logs_fresh(model, factor=none) %}
{%- set since = sync_logs.seconds_between('started_at', sync_logs.monitoring_reference_time()) -%}
select
    sync_id,
    sync_run_id as last_sync_run_id,
    started_at as last_run_started_at,
    interval_baseline_median_seconds,
    {{ since }} / 3600.0 as hours_since_last_run
from {{ model }}
where next_run_started_at is null
    and interval_baseline_median_seconds is not null
    and {{ sync_logs.stale_condition(since, 'interval_baseline_median_seconds', factor) }}
{% endtest %}
