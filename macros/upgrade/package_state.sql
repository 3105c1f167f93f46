{#- The package's version stamp: the state table `sync_logs_package_state` beside the canonical
    tables (one row: the package version whose build last completed there), and the version of
    this package (its models' `sync_logs_library` config: dbt_project.yml's `version:`). Returns
    {'manifest': the node of int_sync_logs__run_manifest, 'relation': the state table's
    relation (none when absent), 'version': this version, 'stamped': the stored version (none
    when there is no stamp)}; none outside package mode on Spark. -#}
{% macro package_state() %}
    {%- set node = graph.nodes.get('model.sync_logs.int_sync_logs__run_manifest') -%}
    {%- if node is none or not node.config.enabled -%}
        {{ return(none) }}
    {%- endif -%}
    {%- set version = node.config.get('sync_logs_library') -%}
    {%- set relation = adapter.get_relation(
        database=node.database, schema=node.schema, identifier='sync_logs_package_state') -%}
    {%- set stamped = none -%}
    {%- if relation is not none -%}
        {%- set stored = run_query('select package_version from ' ~ relation) -%}
        {%- if stored.rows | length > 0 -%}
            {%- set stamped = stored.rows[0][0] -%}
        {%- endif -%}
    {%- endif -%}
    {{ return({'manifest': node, 'relation': relation, 'version': version, 'stamped': stamped}) }}
{% endmacro %}
