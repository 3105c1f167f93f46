{#- The `model_name` under which `sync_logs_incremental_state` records the builds of a
    sync-scoped model (`node`: its graph node): its alias, then `@<n>` where the model's config
    sets `sync_logs_layout` (raised when a release changes the model's columns), then `:by_run`
    where the model is run-scoped (`sync_logs_run_scoped`). A run-scoped model records run
    fingerprints and, on Spark parquet, keeps one partition per run. What an older release
    recorded under another key is no record of the model's current layout, so
    `reset_unrecorded_models` rebuilds its table in full. -#}
{% macro incremental_state_key(node) %}
    {%- set layout = node.config.get('sync_logs_layout') -%}
    {{ return(node.alias ~ ('@' ~ layout if layout else '')
        ~ (':by_run' if sync_logs.is_run_scoped(node) else '')) }}
{% endmacro %}
