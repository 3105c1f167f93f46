{#- A relation pruning reads: this package's model `name` (`sync_changelog`, `sync_runs`, or
    the staged changelog in mode `census`), found in the graph instead of with `ref`, since
    pruning also runs in the on-run-end hook, where dbt refuses a `ref` it did not see when
    parsing the hook; in mode `tables` a canonical table is the `sync_logs_tables` source. -#}
{% macro retention_relation(name) %}
    {%- if sync_logs.source_mode() == 'tables' and not name.startswith('stg_') -%}
        {{ return(sync_logs.canonical_relation(name)) }}
    {%- endif -%}
    {%- for node in graph.nodes.values() -%}
        {%- if node.resource_type == 'model' and node.package_name == 'sync_logs' and node.name == name -%}
            {{ return(api.Relation.create(database=node.database, schema=node.schema, identifier=node.alias)) }}
        {%- endif -%}
    {%- endfor -%}
    {{ exceptions.raise_compiler_error(
        "prune_sync_logs: the model " ~ name ~ " of sync_logs is not in this project (disabled?); "
        ~ "enable it for sync_logs_source '" ~ sync_logs.source_mode() ~ "'.") }}
{% endmacro %}
