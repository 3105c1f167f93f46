{#- on-run-end hook: for each sync-scoped model that this `dbt run`, `build` or `retry` built
    successfully, records the run fingerprints it was built from in `sync_logs_incremental_state`
    (created on first use; `run_fingerprint` for a run-scoped model, under its
    `incremental_state_key`), replacing what its previous build recorded. A model that failed,
    was skipped or was not selected keeps its previous record, so its next build rewrites
    every sync that changed since. Renders no SQL. -#}
{% macro record_incremental_state() %}
    {%- if not execute or flags.WHICH not in ['run', 'build', 'retry'] -%}
        {{ return('') }}
    {%- endif -%}
    {%- set scoped = sync_logs.sync_scoped_models() -%}
    {%- set succeeded = results | selectattr('status', 'equalto', 'success')
        | map(attribute='node.unique_id') | list -%}
    {%- set built = [] -%}
    {%- for node in scoped if node.unique_id in succeeded -%}
        {%- do built.append(node) -%}
    {%- endfor -%}
    {%- set state = sync_logs.incremental_state_relation() -%}
    {%- if not built or state is none -%}
        {{ return('') }}
    {%- endif -%}
    {%- if load_relation(state) is none -%}
        {% do adapter.dispatch('create_incremental_state', 'sync_logs')(state) %}
    {%- endif -%}
    {%- set fingerprints = sync_logs.package_model_relation('int_sync_logs__run_fingerprints') -%}
    {% do adapter.dispatch('replace_incremental_state', 'sync_logs')(state, fingerprints, built) %}
    {{ return('') }}
{% endmacro %}

{% macro spark__create_incremental_state(relation) %}
    {%- set file_format = 'delta' if target.type == 'databricks' else 'parquet' -%}
    {% do run_query('create table if not exists ' ~ relation
        ~ ' (sync_id bigint, sync_run_id bigint, fingerprint string, model_name string)'
        ~ ' using ' ~ file_format ~ ' partitioned by (model_name)') %}
{% endmacro %}

{% macro default__create_incremental_state(relation) %}
    {% do run_query('create table if not exists ' ~ relation ~ ' (sync_id ' ~ dbt.type_bigint()
        ~ ', sync_run_id ' ~ dbt.type_bigint() ~ ', fingerprint ' ~ dbt.type_string()
        ~ ', model_name ' ~ dbt.type_string() ~ ')') %}
{% endmacro %}

{#- `models`: graph nodes; each recorded under its `incremental_state_key`. -#}
{% macro incremental_state_rows(fingerprints, models) %}
    select
        fingerprints.sync_id,
        fingerprints.sync_run_id,
        case
            when models.is_run_scoped = 1 then fingerprints.run_fingerprint
            else fingerprints.fingerprint
        end as fingerprint,
        models.model_name
    from {{ fingerprints }} as fingerprints
    cross join (
        {%- for model in models %}
        select '{{ sync_logs.incremental_state_key(model) }}' as model_name, {{ 1 if sync_logs.is_run_scoped(model) else 0 }} as is_run_scoped{{ ' union all' if not loop.last }}
        {%- endfor %}
    ) as models
{% endmacro %}

{% macro spark__replace_incremental_state(state, fingerprints, models) %}
    {%- if target.type == 'databricks' -%}
        {% do sync_logs.default__replace_incremental_state(state, fingerprints, models) %}
    {%- else -%}
        {#- a model with no fingerprint left must lose its partition too: drop, then insert -#}
        {%- set partitions = [] -%}
        {%- for model in models -%}
            {%- do partitions.append(
                "partition (model_name = '" ~ sync_logs.incremental_state_key(model) ~ "')") -%}
        {%- endfor -%}
        {% do run_query('alter table ' ~ state ~ ' drop if exists ' ~ partitions | join(', ')) %}
        {% do run_query('insert into table ' ~ state ~ ' partition (model_name) '
            ~ sync_logs.incremental_state_rows(fingerprints, models)) %}
    {%- endif -%}
{% endmacro %}

{% macro default__replace_incremental_state(state, fingerprints, models) %}
    {%- call statement('replace_incremental_state', auto_begin=True) -%}
        {%- set keys = [] -%}
        {%- for model in models -%}
            {%- do keys.append(sync_logs.incremental_state_key(model)) -%}
        {%- endfor %}
        delete from {{ state }} where model_name in ('{{ keys | join("', '") }}')
    {%- endcall -%}
    {%- call statement('record_incremental_state', auto_begin=True) -%}
        insert into {{ state }} (sync_id, sync_run_id, fingerprint, model_name)
        {{ sync_logs.incremental_state_rows(fingerprints, models) }}
    {%- endcall -%}
    {%- if target.type != 'databricks' -%}
        {%- do adapter.commit() -%}
    {%- endif -%}
{% endmacro %}
