{#- `value` with every match of `pattern` replaced by `replacement` (plain text: no group
    references, no `$` or backslash). Case-sensitive. `value` is a SQL expression, `pattern`
    and `replacement` are Python strings (quoted here for the warehouse). -#}
{% macro regexp_replace_all(value, pattern, replacement) %}
    {{ return(adapter.dispatch('regexp_replace_all', 'sync_logs')(value, pattern, replacement)) }}
{% endmacro %}

{% macro default__regexp_replace_all(value, pattern, replacement) -%}
    regexp_replace({{ value }}, '{{ dbt.escape_single_quotes(pattern) }}', '{{ dbt.escape_single_quotes(replacement) }}', 'g')
{%- endmacro %}

{#- Snowflake, BigQuery, Spark and Redshift replace every match by default. -#}
{% macro spark__regexp_replace_all(value, pattern, replacement) -%}
    regexp_replace({{ value }}, '{{ dbt.escape_single_quotes(pattern) }}', '{{ dbt.escape_single_quotes(replacement) }}')
{%- endmacro %}

{% macro snowflake__regexp_replace_all(value, pattern, replacement) -%}
    regexp_replace({{ value }}, '{{ dbt.escape_single_quotes(pattern) }}', '{{ dbt.escape_single_quotes(replacement) }}')
{%- endmacro %}

{% macro bigquery__regexp_replace_all(value, pattern, replacement) -%}
    regexp_replace({{ value }}, '{{ dbt.escape_single_quotes(pattern) }}', '{{ dbt.escape_single_quotes(replacement) }}')
{%- endmacro %}

{% macro redshift__regexp_replace_all(value, pattern, replacement) -%}
    regexp_replace({{ value }}, '{{ dbt.escape_single_quotes(pattern) }}', '{{ dbt.escape_single_quotes(replacement) }}')
{%- endmacro %}
