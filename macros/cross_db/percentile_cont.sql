{#- Aggregate: the continuous (interpolated) percentile `fraction` (0 to 1) of `expression`. -#}
{% macro percentile_cont(expression, fraction) %}
    {{ return(adapter.dispatch('percentile_cont', 'sync_logs')(expression, fraction)) }}
{% endmacro %}

{% macro default__percentile_cont(expression, fraction) -%}
    percentile_cont({{ fraction }}) within group (order by {{ expression }})
{%- endmacro %}

{% macro spark__percentile_cont(expression, fraction) -%}
    percentile({{ expression }}, {{ fraction }})
{%- endmacro %}

{#- BigQuery has percentile_cont only as a window function: approximate, to 1/100. -#}
{% macro bigquery__percentile_cont(expression, fraction) -%}
    approx_quantiles({{ expression }}, 100)[offset({{ (fraction * 100) | round | int }})]
{%- endmacro %}
