{#- Runs one statement of pruning and commits it where the warehouse has transactions (a
    run-operation's connection is closed, rolling back what was not committed). -#}
{% macro retention_execute(name, sql) %}
    {%- call statement(name, auto_begin=True) -%}
        {{ sql }}
    {%- endcall -%}
    {%- if not sync_logs.is_spark_target() -%}
        {%- do adapter.commit() -%}
    {%- endif -%}
{% endmacro %}
