{#- The build lease table: one row per build that holds or asks for the target schema
    (`lease_id` = the dbt invocation id, `holder`, `acquired_at`, `expires_at`). -#}
{% macro build_lease_relation() %}
    {{ return(api.Relation.create(schema=target.schema, identifier='sync_logs_build_lease',
                                  type='table')) }}
{% endmacro %}
