{#- Aggregate: the values of `expression` (text) of the group, sorted
    ascending and joined with `delimiter` (a SQL string literal, e.g. "', '"); null for a
    group with no non-null value. dbt's own `listagg` cannot sort on Spark. -#}
{% macro string_agg_sorted(expression, delimiter) %}
    {{ return(adapter.dispatch('string_agg_sorted', 'sync_logs')(expression, delimiter)) }}
{% endmacro %}

{% macro default__string_agg_sorted(expression, delimiter) -%}
    {{ dbt.listagg(expression, delimiter, 'order by ' ~ expression) }}
{%- endmacro %}

{% macro spark__string_agg_sorted(expression, delimiter) -%}
    nullif(array_join(array_sort(collect_list({{ expression }})), {{ delimiter }}), '')
{%- endmacro %}
