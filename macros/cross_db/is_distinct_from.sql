{#- Null-safe inequality: true when exactly one side is null or both differ. -#}
{% macro is_distinct_from(left, right) %}
    {{ return(adapter.dispatch('is_distinct_from', 'sync_logs')(left, right)) }}
{% endmacro %}

{% macro default__is_distinct_from(left, right) -%}
    ({{ left }} is distinct from {{ right }})
{%- endmacro %}

{% macro spark__is_distinct_from(left, right) -%}
    (not ({{ left }} <=> {{ right }}))
{%- endmacro %}

{% macro redshift__is_distinct_from(left, right) -%}
    (case when {{ left }} = {{ right }} or ({{ left }} is null and {{ right }} is null) then false else true end)
{%- endmacro %}
