{#- The `model_name` under which `sync_logs_incremental_state` records the builds of a
    sync-scoped model (`node`: its graph node): its alias, suffixed `:by_run` where the model is
    run-scoped (`sync_logs_run_scoped`). A run-scoped model records run fingerprints and, on
    Spark parquet, keeps one partition per run: what an older release recorded under the bare
    alias is no record of it, so `reset_unrecorded_models` rebuilds its table in full. -#}
{% macro incremental_state_key(node) %}
    {{ return(node.alias ~ (':by_run' if sync_logs.is_run_scoped(node) else '')) }}
{% endmacro %}
