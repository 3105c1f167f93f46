{#- The text matched by the only capturing group of `pattern` (one group, no other
    parentheses: BigQuery refuses more) at its first match in `value`; null when it does not
    match. Case-sensitive: lower the value first for a case-insensitive match. Both
    arguments are SQL expressions. -#}
{% macro regexp_extract(value, pattern) %}
    {{ return(adapter.dispatch('regexp_extract', 'sync_logs')(value, pattern)) }}
{% endmacro %}

{#- PostgreSQL: substring(... from ...) returns the first parenthesised subexpression. -#}
{% macro default__regexp_extract(value, pattern) -%}
    substring({{ value }} from {{ pattern }})
{%- endmacro %}

{% macro duckdb__regexp_extract(value, pattern) -%}
    nullif(regexp_extract({{ value }}, {{ pattern }}, 1), '')
{%- endmacro %}

{% macro spark__regexp_extract(value, pattern) -%}
    nullif(regexp_extract({{ value }}, {{ pattern }}, 1), '')
{%- endmacro %}

{% macro snowflake__regexp_extract(value, pattern) -%}
    regexp_substr({{ value }}, {{ pattern }}, 1, 1, 'e', 1)
{%- endmacro %}

{% macro bigquery__regexp_extract(value, pattern) -%}
    regexp_extract({{ value }}, {{ pattern }})
{%- endmacro %}

{% macro redshift__regexp_extract(value, pattern) -%}
    regexp_substr({{ value }}, {{ pattern }}, 1, 1, 'e')
{%- endmacro %}
