{#- The one place that reads the vars of the monitoring marts (`sync_logs__run_anomalies`,
    `sync_logs__incidents`, the test `sync_logs_fresh`): a dict of setting to value. The
    defaults repeat those declared in dbt_project.yml: the installing project may apply the
    test `sync_logs_fresh` to its own model, and dbt resolves var() in that test's project,
    which does not see the package's declaration. -#}
{% macro monitoring_settings() %}
    {%- set settings = {
        'baseline_runs': var('sync_logs_anomaly_baseline_runs', 10) | int,
        'min_baseline_runs': var('sync_logs_anomaly_min_baseline_runs', 3) | int,
        'score_threshold': var('sync_logs_anomaly_score_threshold', 3.5) | float,
        'min_spread_ratio': var('sync_logs_anomaly_min_spread_ratio', 0.1) | float,
        'slow_run_factor': var('sync_logs_slow_run_factor', 1.5) | float,
        'failed_rate_warning': var('sync_logs_failed_rate_warning', 0.05) | float,
        'failed_rate_critical': var('sync_logs_failed_rate_critical', 0.25) | float,
        'stale_factor': var('sync_logs_stale_factor', 3) | float,
        'reference_time': var('sync_logs_reference_time', none),
        'critical_error_classes': var('sync_logs_critical_error_classes', ['authentication', 'permission']),
    } -%}
    {%- if settings['baseline_runs'] < 1 or settings['min_baseline_runs'] < 1 -%}
        {{ exceptions.raise_compiler_error(
            "sync_logs_anomaly_baseline_runs and sync_logs_anomaly_min_baseline_runs must be at least 1") }}
    {%- endif -%}
    {%- if settings['failed_rate_critical'] < settings['failed_rate_warning'] -%}
        {{ exceptions.raise_compiler_error(
            "sync_logs_failed_rate_critical must be at least sync_logs_failed_rate_warning") }}
    {%- endif -%}
    {{ return(settings) }}
{% endmacro %}

{#- The reference time of the freshness check as a SQL timestamp: var
    `sync_logs_reference_time` (a UTC timestamp text) or the current time. -#}
{% macro monitoring_reference_time() %}
    {%- set reference_time = sync_logs.monitoring_settings()['reference_time'] -%}
    {%- if reference_time is none -%}
        {{ return('cast(' ~ dbt.current_timestamp() ~ ' as ' ~ dbt.type_timestamp() ~ ')') }}
    {%- endif -%}
    {{ return("cast('" ~ dbt.escape_single_quotes(reference_time | string) ~ "' as " ~ dbt.type_timestamp() ~ ")") }}
{% endmacro %}
