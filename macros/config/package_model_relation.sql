{#- The relation of this package's model `name`, from dbt's graph rather than `ref`: for hooks,
    where dbt refuses a `ref` it did not see when parsing the hook. None when the model is not
    in the project (disabled in this source mode). -#}
{% macro package_model_relation(name) %}
    {%- set node = graph.nodes.get('model.sync_logs.' ~ name) -%}
    {%- if node is none -%}
        {{ return(none) }}
    {%- endif -%}
    {{ return(api.Relation.create(database=node.database, schema=node.schema, identifier=node.alias)) }}
{% endmacro %}
