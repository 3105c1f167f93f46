{#- The nodes of this package's sync-scoped incremental models (config `sync_logs_sync_scoped`). -#}
{% macro sync_scoped_models() %}
    {{ return(graph.nodes.values()
        | selectattr('resource_type', 'equalto', 'model')
        | selectattr('package_name', 'equalto', 'sync_logs')
        | selectattr('config.sync_logs_sync_scoped', 'equalto', true)
        | list) }}
{% endmacro %}
