{#- Removes the lease row `lease_id` (see `build_lease_create`). -#}
{% macro build_lease_remove(lease, lease_id) %}
    {% call statement('sync_logs_build_lease_remove') %}
        {% if target.type == 'databricks' -%}
            delete from {{ lease }} where lease_id = '{{ dbt.escape_single_quotes(lease_id) }}'
        {%- else -%}
            alter table {{ lease }} drop if exists partition (lease_id = '{{ dbt.escape_single_quotes(lease_id) }}')
        {%- endif %}
    {% endcall %}
{% endmacro %}
