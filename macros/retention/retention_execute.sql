{#- Runs one statement of pruning and commits it where the warehouse has transactions (a
    run-operation's connection is closed, rolling back what was not committed). -#}
{% macro retention_execute(name, sql) %}
    {%- call statement(name, auto_begin=True) -%}
        {{ sql }}
    {%- endcall -%}
    {%- if target.type not in ['spark', 'sparksession', 'databricks'] -%}
        {%- do adapter.commit() -%}
    {%- endif -%}
{% endmacro %}
