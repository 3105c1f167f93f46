{#- The table `sync_logs_incremental_state` beside the marts: for each sync-scoped model, the
    run fingerprints (`int_sync_logs__run_fingerprints`) its latest completed build computed
    from. One row per (model_name, sync_id, sync_run_id). None while the fingerprint model is
    not in the project. -#}
{% macro incremental_state_relation() %}
    {%- set fingerprints = sync_logs.package_model_relation('int_sync_logs__run_fingerprints') -%}
    {%- if fingerprints is none -%}
        {{ return(none) }}
    {%- endif -%}
    {{ return(api.Relation.create(database=fingerprints.database, schema=fingerprints.schema,
        identifier='sync_logs_incremental_state', type='table')) }}
{% endmacro %}
