{#- Whether a sync-scoped model (`node`: its graph node) is run-scoped (`sync_scoped_storage`). -#}
{% macro is_run_scoped(node) %}
    {{ return(node.config.get('sync_logs_run_scoped', false) is true) }}
{% endmacro %}
