{#- A double-precision floating point type (sync_logs.type_double() is single precision on some
    adapters, e.g. Spark and DuckDB `float`). -#}
{% macro type_double() %}
    {{ return(adapter.dispatch('type_double', 'sync_logs')()) }}
{% endmacro %}

{% macro default__type_double() -%}
    double precision
{%- endmacro %}

{% macro spark__type_double() -%}
    double
{%- endmacro %}

{% macro duckdb__type_double() -%}
    double
{%- endmacro %}

{% macro snowflake__type_double() -%}
    float
{%- endmacro %}

{% macro bigquery__type_double() -%}
    float64
{%- endmacro %}
