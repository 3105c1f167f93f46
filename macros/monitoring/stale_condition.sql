{#- The freshness rule, shared by `sync_logs__incidents` (kind `stale`) and the test
    `sync_logs_fresh`: true when `gap_seconds` (time since a run started, to the next run or
    to the reference time) exceeds `factor` (default var `sync_logs_stale_factor`) times
    `median_interval_seconds` (the sync's trailing median interval between runs; null,
    so never stale, with fewer than `sync_logs_anomaly_min_baseline_runs` intervals). -#}
{% macro stale_condition(gap_seconds, median_interval_seconds, factor=none) %}
    {%- set factor = sync_logs.monitoring_settings()['stale_factor'] if factor is none else factor -%}
    ({{ gap_seconds }} > {{ factor }} * {{ median_interval_seconds }})
{% endmacro %}
