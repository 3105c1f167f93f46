{#- Creates `relation` as a table holding the rows of `sql` (a working table of pruning,
    dropped when it is done). Spark writes parquet, Databricks its default (Delta). -#}
{% macro retention_stage_table(relation, sql) %}
    {{ return(adapter.dispatch('retention_stage_table', 'sync_logs')(relation, sql)) }}
{% endmacro %}

{% macro default__retention_stage_table(relation, sql) %}
    {%- do sync_logs.retention_execute('sync_logs_retention_stage',
        'create table ' ~ relation ~ ' as\n' ~ sql) -%}
{% endmacro %}

{% macro spark__retention_stage_table(relation, sql) %}
    {%- do sync_logs.retention_execute('sync_logs_retention_stage',
        'create table ' ~ relation ~ ' using parquet as\n' ~ sql) -%}
{% endmacro %}

{% macro databricks__retention_stage_table(relation, sql) %}
    {{ sync_logs.default__retention_stage_table(relation, sql) }}
{% endmacro %}
