{#- Seconds (with fractions) from timestamp `start` to timestamp `end`; null if either is null. -#}
{% macro seconds_between(start, end) %}
    {{ return(adapter.dispatch('seconds_between', 'sync_logs')(start, end)) }}
{% endmacro %}

{% macro default__seconds_between(start, end) -%}
    {{ dbt.datediff(start, end, 'second') }}
{%- endmacro %}

{% macro postgres__seconds_between(start, end) -%}
    cast(extract(epoch from ({{ end }} - {{ start }})) as {{ sync_logs.type_double() }})
{%- endmacro %}

{% macro duckdb__seconds_between(start, end) -%}
    (date_diff('millisecond', {{ start }}, {{ end }}) / 1000.0)
{%- endmacro %}

{#- dbt-spark's datediff raises on null timestamps; runs that never finished have one. -#}
{% macro spark__seconds_between(start, end) -%}
    ((unix_micros({{ end }}) - unix_micros({{ start }})) / 1000000.0)
{%- endmacro %}

{% macro snowflake__seconds_between(start, end) -%}
    (timestampdiff(millisecond, {{ start }}, {{ end }}) / 1000.0)
{%- endmacro %}

{% macro bigquery__seconds_between(start, end) -%}
    (timestamp_diff({{ end }}, {{ start }}, millisecond) / 1000.0)
{%- endmacro %}

{% macro redshift__seconds_between(start, end) -%}
    (datediff(millisecond, {{ start }}, {{ end }}) / 1000.0)
{%- endmacro %}
