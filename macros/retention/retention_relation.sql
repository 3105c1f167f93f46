{#- A relation pruning reads: this package's model `name` (`sync_changelog`, `sync_runs`, or
    the staged changelog in mode `census`), found in the graph (`package_model_relation`),
    since pruning also runs in the on-run-end hook; in mode `tables` a canonical table is the
    `sync_logs_tables` source. -#}
{% macro retention_relation(name) %}
    {%- if sync_logs.source_mode() == 'tables' and not name.startswith('stg_') -%}
        {{ return(sync_logs.canonical_relation(name)) }}
    {%- endif -%}
    {%- set relation = sync_logs.package_model_relation(name) -%}
    {%- if relation is not none -%}
        {{ return(relation) }}
    {%- endif -%}
    {{ exceptions.raise_compiler_error(
        "prune_sync_logs: the model " ~ name ~ " of sync_logs is not in this project (disabled?); "
        ~ "enable it for sync_logs_source '" ~ sync_logs.source_mode() ~ "'.") }}
{% endmacro %}
