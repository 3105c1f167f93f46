{#- The partition columns of a Spark table, in order (from `describe table`). -#}
{% macro retention_spark_partition_columns(relation) %}
    {%- set described = run_query('describe table ' ~ relation) -%}
    {%- set columns = [] -%}
    {%- set state = {'in_partitions': false} -%}
    {%- for row in described.rows -%}
        {%- set name = (row[0] or '') | trim -%}
        {%- if name == '# Partition Information' -%}
            {%- do state.update({'in_partitions': true}) -%}
        {%- elif state.in_partitions and name and not name.startswith('#') -%}
            {%- do columns.append(name) -%}
        {%- elif state.in_partitions and not name -%}
            {%- do state.update({'in_partitions': false}) -%}
        {%- endif -%}
    {%- endfor -%}
    {{ return(columns) }}
{% endmacro %}
