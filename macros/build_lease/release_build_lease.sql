{#- on-run-end: removes this invocation's build lease row (`acquire_build_lease`), or, given
    `lease_id`, another build's (a killed build's, by hand). -#}
{% macro release_build_lease(lease_id=none) %}
    {%- if execute and (lease_id or sync_logs.uses_build_lease()) -%}
        {%- set lease = sync_logs.build_lease_relation() -%}
        {#- created if missing, not looked up: dbt's relation cache, filled when the invocation
            started, does not know the table that its on-run-start created -#}
        {%- do sync_logs.build_lease_create(lease) -%}
        {%- do sync_logs.build_lease_remove(lease, lease_id or invocation_id) -%}
    {%- endif -%}
    {{ return('') }}
{% endmacro %}
