{#- on-run-end: removes this invocation's build lease row (`acquire_build_lease`), or, given
    `lease_id`, another build's (a killed build's, by hand). -#}
{% macro release_build_lease(lease_id=none) %}
    {%- if execute and (lease_id or sync_logs.uses_build_lease()) -%}
        {%- set lease = sync_logs.build_lease_relation() -%}
        {%- if load_relation(lease) is not none -%}
            {%- do sync_logs.build_lease_remove(lease, lease_id or invocation_id) -%}
        {%- endif -%}
    {%- endif -%}
    {{ return('') }}
{% endmacro %}
