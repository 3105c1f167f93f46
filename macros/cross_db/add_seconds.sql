{#- Timestamp `timestamp` plus `seconds` (a SQL number expression, fractions kept to the
    millisecond). -#}
{% macro add_seconds(timestamp, seconds) %}
    {{ return(adapter.dispatch('add_seconds', 'sync_logs')(timestamp, seconds)) }}
{% endmacro %}

{% macro default__add_seconds(timestamp, seconds) -%}
    {{ dbt.dateadd('millisecond', 'cast(round(' ~ seconds ~ ' * 1000) as ' ~ dbt.type_bigint() ~ ')', timestamp) }}
{%- endmacro %}

{% macro postgres__add_seconds(timestamp, seconds) -%}
    ({{ timestamp }} + ({{ seconds }}) * interval '1 second')
{%- endmacro %}

{% macro duckdb__add_seconds(timestamp, seconds) -%}
    ({{ timestamp }} + to_microseconds(cast(round(({{ seconds }}) * 1000) as bigint) * 1000))
{%- endmacro %}

{% macro spark__add_seconds(timestamp, seconds) -%}
    timestamp_micros(unix_micros({{ timestamp }}) + cast(round(({{ seconds }}) * 1000) as bigint) * 1000)
{%- endmacro %}
