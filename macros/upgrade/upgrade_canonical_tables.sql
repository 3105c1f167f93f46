{#- The package's on-run-start hook: before a `dbt run` or `dbt build` in package mode, when the
    version stamp (`package_state`) is not this version and canonical tables exist (no stamp:
    release 0.1.0, which wrote none), brings the tables an older release built to this
    release's layout, in place:
    - public tables gain the columns added since (`alter table ... add columns`; their rows
      stay, the new columns are null on rows written before);
    - internal tables that are rebuilt from the others or that no release reads any more are
      dropped (the build creates them again);
    - the run manifest is read in the current layout by the library
      (`sync_logs.canonical.upgrade`) and gains its new columns when the build writes it
      (`on_schema_change: append_new_columns`): every run folder still in the lake is listed,
      parsed and reloaded once, and runs whose folder has left keep their rows.
    Each step looks at the table as it is, so a build that dies half-way is upgraded again by
    the next one. Renders no SQL. -#}
{% macro upgrade_canonical_tables() %}
    {%- if not execute or flags.WHICH not in ['run', 'build'] -%}
        {{ return('') }}
    {%- endif -%}
    {%- set state = sync_logs.package_state() -%}
    {%- if state is none or state.stamped == state.version -%}
        {{ return('') }}
    {%- endif -%}
    {%- set node = state.manifest -%}
    {%- if adapter.get_relation(database=node.database, schema=node.schema, identifier=node.alias) is none -%}
        {{ return('') }}  {#- a first build: nothing to upgrade -#}
    {%- endif -%}
    {{ log("sync_logs: upgrading the canonical tables in " ~ node.schema ~ " from sync_logs "
        ~ (state.stamped or "0.1.0 (no version stamp)") ~ " to " ~ state.version, info=true) }}
    {%- set added_columns = {
        'sync_changelog': [('timestamp_problem', 'string')],
        'sync_runs': [('num_timestamp_errors', 'bigint')],
    } -%}
    {%- for model_name, columns in added_columns.items() -%}
        {%- set relation = load_relation(sync_logs.package_model_relation(model_name)) -%}
        {%- if relation is not none -%}
            {%- set present = adapter.get_columns_in_relation(relation) | map(attribute='name') | map('lower') | list -%}
            {%- set missing = [] -%}
            {%- for name, data_type in columns if name not in present -%}
                {%- do missing.append(name ~ ' ' ~ data_type) -%}
            {%- endfor -%}
            {%- if missing -%}
                {%- do run_query('alter table ' ~ relation ~ ' add columns (' ~ missing | join(', ') ~ ')') -%}
            {%- endif -%}
        {%- endif -%}
    {%- endfor -%}
    {#- rebuilt every build from the manifest, or read by no model any more -#}
    {%- for identifier in ['int_sync_logs__objects', 'int_sync_logs__committed_runs', 'int_sync_logs__runs_to_rewrite'] -%}
        {%- set relation = adapter.get_relation(
            database=node.database, schema=node.schema, identifier=identifier) -%}
        {%- if relation is not none -%}
            {%- do adapter.drop_relation(relation) -%}
        {%- endif -%}
    {%- endfor -%}
    {{ return('') }}
{% endmacro %}
