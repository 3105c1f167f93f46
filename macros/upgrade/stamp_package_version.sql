{#- The package's on-run-end hook: after a `dbt run` or `dbt build` that built the run manifest
    and in which no node errored, stores this package's version in the state table
    `sync_logs_package_state` (created on first use), so that the next build knows what built
    the warehouse (`upgrade_canonical_tables`). Renders no SQL. -#}
{% macro stamp_package_version() %}
    {%- if not execute or flags.WHICH not in ['run', 'build'] -%}
        {{ return('') }}
    {%- endif -%}
    {%- set built = results | selectattr('node.unique_id', 'equalto', 'model.sync_logs.int_sync_logs__run_manifest')
        | selectattr('status', 'equalto', 'success') | list -%}
    {%- set errored = results | selectattr('status', 'equalto', 'error') | list -%}
    {%- set state = sync_logs.package_state() -%}
    {%- if not built or errored or state is none or state.stamped == state.version -%}
        {{ return('') }}
    {%- endif -%}
    {%- set relation = api.Relation.create(database=state.manifest.database,
        schema=state.manifest.schema, identifier='sync_logs_package_state', type='table') -%}
    {%- if state.relation is none -%}
        {%- do run_query('create table if not exists ' ~ relation
            ~ ' (package_version string, stamped_at timestamp) using '
            ~ state.manifest.config.get('file_format', 'parquet')) -%}
    {%- endif -%}
    {%- do run_query('insert overwrite table ' ~ relation ~ " select '" ~ state.version
        ~ "', current_timestamp()") -%}
    {{ return('') }}
{% endmacro %}
