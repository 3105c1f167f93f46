{#- Creates the build lease table when missing. Spark parquet tables have no DELETE: one
    partition per lease, dropped to remove it (`build_lease_remove`); Delta deletes. -#}
{% macro build_lease_create(lease) %}
    {% call statement('sync_logs_build_lease_create') %}
        create table if not exists {{ lease }} (
            holder string,
            acquired_at timestamp,
            expires_at timestamp,
            lease_id string
        )
        {% if target.type == 'databricks' -%}
            using delta
        {%- else -%}
            using parquet partitioned by (lease_id)
        {%- endif %}
    {% endcall %}
{% endmacro %}
