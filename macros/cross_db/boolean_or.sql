{#- Aggregate: true when the boolean expression is true for any row of the group. -#}
{% macro boolean_or(expression) %}
    {{ return(adapter.dispatch('boolean_or', 'sync_logs')(expression)) }}
{% endmacro %}

{% macro default__boolean_or(expression) -%}
    bool_or({{ expression }})
{%- endmacro %}

{% macro snowflake__boolean_or(expression) -%}
    boolor_agg({{ expression }})
{%- endmacro %}

{% macro bigquery__boolean_or(expression) -%}
    logical_or({{ expression }})
{%- endmacro %}
