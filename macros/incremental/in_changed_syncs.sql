{#- A predicate on `column` (a sync id) that keeps the syncs this build of a sync-scoped model
    rewrites (`changed_sync_ids`): every sync in a full build, none in an idle one. -#}
{% macro in_changed_syncs(column='sync_id') %}
    {#- the model depends on the fingerprints that `changed_sync_ids` reads -#}
    {%- do ref('int_sync_logs__run_fingerprints') -%}
    {%- set ids = sync_logs.changed_sync_ids() -%}
    {%- if ids is none -%}
        1 = 1
    {%- elif ids | length == 0 -%}
        1 = 0
    {%- else -%}
        {{ column }} in ({{ ids | join(', ') }})
    {%- endif -%}
{% endmacro %}
