{#- Qualify-style filtering: `select <columns> from <relation>` keeping, per `partition_by`,
    only the first row in `order_by` order. `relation` is a relation or a CTE name; the
    three others are SQL lists (`columns` a list of column names). -#}
{% macro first_per_partition(relation, partition_by, order_by, columns) %}
    {{ return(adapter.dispatch('first_per_partition', 'sync_logs')(relation, partition_by, order_by, columns)) }}
{% endmacro %}

{% macro default__first_per_partition(relation, partition_by, order_by, columns) -%}
    select {{ columns | join(', ') }}
    from (
        select
            {{ columns | join(', ') }},
            row_number() over (partition by {{ partition_by }} order by {{ order_by }}) as sync_logs_row_number
        from {{ relation }}
    ) as sync_logs_numbered
    where sync_logs_row_number = 1
{%- endmacro %}

{% macro sync_logs_qualify_first_per_partition(relation, partition_by, order_by, columns) -%}
    select {{ columns | join(', ') }}
    from {{ relation }}
    where true  {#- BigQuery accepts qualify only after a where, group by or having #}
    qualify row_number() over (partition by {{ partition_by }} order by {{ order_by }}) = 1
{%- endmacro %}

{% macro snowflake__first_per_partition(relation, partition_by, order_by, columns) -%}
    {{ sync_logs.sync_logs_qualify_first_per_partition(relation, partition_by, order_by, columns) }}
{%- endmacro %}

{% macro bigquery__first_per_partition(relation, partition_by, order_by, columns) -%}
    {{ sync_logs.sync_logs_qualify_first_per_partition(relation, partition_by, order_by, columns) }}
{%- endmacro %}

{% macro duckdb__first_per_partition(relation, partition_by, order_by, columns) -%}
    {{ sync_logs.sync_logs_qualify_first_per_partition(relation, partition_by, order_by, columns) }}
{%- endmacro %}

{% macro databricks__first_per_partition(relation, partition_by, order_by, columns) -%}
    {{ sync_logs.sync_logs_qualify_first_per_partition(relation, partition_by, order_by, columns) }}
{%- endmacro %}
