{#- on-run-start hook: a selected sync-scoped model whose table exists but has no fingerprints
    recorded (`sync_logs_incremental_state`, under its `incremental_state_key`) is dropped, so
    that this build creates it in full: a table an older release built as a plain table or
    kept in another layout, or one whose first build did not complete.
    A `--full-refresh` build needs nothing. Renders no SQL. -#}
{% macro reset_unrecorded_models() %}
    {%- if not execute or flags.WHICH not in ['run', 'build'] or flags.FULL_REFRESH -%}
        {{ return('') }}
    {%- endif -%}
    {%- set selected = sync_logs.sync_scoped_models()
        | selectattr('unique_id', 'in', selected_resources) | list -%}
    {%- set state = sync_logs.incremental_state_relation() -%}
    {%- if state is none or not selected -%}
        {{ return('') }}
    {%- endif -%}
    {%- set recorded = [] -%}
    {%- set dropped = [] -%}
    {%- if load_relation(state) is not none -%}
        {%- set recorded = run_query('select distinct model_name from ' ~ state).columns[0].values() | list -%}
    {%- endif -%}
    {%- for node in selected if sync_logs.incremental_state_key(node) not in recorded -%}
        {%- set relation = adapter.get_relation(
            database=node.database, schema=node.schema, identifier=node.alias) -%}
        {%- if relation is not none -%}
            {{ log("sync_logs: " ~ node.alias ~ " has no recorded build: it is built in full", info=true) }}
            {%- do adapter.drop_relation(relation) -%}
            {%- do dropped.append(relation) -%}
        {%- endif -%}
    {%- endfor -%}
    {%- if dropped and target.type in ['postgres', 'redshift'] -%}
        {#- hooks run outside dbt's transactions; the driver's own one holds the drops -#}
        {%- do run_query('commit') -%}
    {%- elif dropped and not sync_logs.is_spark_target() -%}
        {%- do adapter.commit() -%}
    {%- endif -%}
    {{ return('') }}
{% endmacro %}
