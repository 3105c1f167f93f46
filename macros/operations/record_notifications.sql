{#- `sync-logs notify` state: appends the (incident, status) pairs it sent to one channel to a
    small table, created here when it does not exist yet (`channel`, `incident_id`, `status`,
    `sent_at`). Called by the CLI through `dbt run-operation`; the table is the memory that
    sends each (incident, status) once per channel across invocations. -#}
{% macro record_notifications(schema, identifier, channel, sent_at, notifications, database=none) %}
    {{ return(adapter.dispatch('record_notifications', 'sync_logs')(
        schema, identifier, channel, sent_at, notifications, database)) }}
{% endmacro %}

{% macro default__record_notifications(schema, identifier, channel, sent_at, notifications, database) %}
    {%- if not execute or not notifications -%}
        {{ return('') }}
    {%- endif -%}
    {%- if not modules.re.fullmatch('[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2}', sent_at | string) -%}
        {{ exceptions.raise_compiler_error(
            "sync_logs.record_notifications: sent_at must be 'YYYY-MM-DD HH:MM:SS', got '"
            ~ sent_at ~ "'") }}
    {%- endif -%}
    {%- set relation = sync_logs.relation_in_schema(identifier, schema, database) -%}
    {%- set text = dbt.type_string() -%}
    {% call statement('sync_logs_create_notifications') %}
        create table if not exists {{ relation }} (
            channel {{ text }},
            incident_id {{ text }},
            status {{ text }},
            sent_at {{ dbt.type_timestamp() }}
        )
    {% endcall %}
    {#- at most 500 rows per statement: some warehouses limit a statement's size -#}
    {%- for chunk in notifications | batch(500) -%}
        {%- set values = [] -%}
        {%- for notification in chunk -%}
            {%- do values.append(
                "('" ~ dbt.escape_single_quotes(channel | string) ~ "', '"
                ~ dbt.escape_single_quotes(notification[0] | string) ~ "', '"
                ~ dbt.escape_single_quotes(notification[1] | string) ~ "', cast('" ~ sent_at
                ~ "' as " ~ dbt.type_timestamp() ~ "))") -%}
        {%- endfor -%}
        {% call statement('sync_logs_insert_notifications') %}
            insert into {{ relation }} (channel, incident_id, status, sent_at)
            values {{ values | join(',\n                ') }}
        {% endcall %}
    {%- endfor -%}
    {#- run-operation rolls back what is left open: commit (statements opened a transaction) -#}
    {%- do adapter.commit() -%}
{% endmacro %}
