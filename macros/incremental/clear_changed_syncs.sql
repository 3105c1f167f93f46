{#- Pre-hook of a sync-scoped incremental model: on an incremental build, removes the rows of
    what it rewrites (`changed_runs`): the syncs rewritten whole and the new runs of a
    run-scoped model (none yet, unless a build died after writing them; see `changed_runs` for
    Spark parquet); all rows when everything is rewritten. On Spark parquet the partitions are
    dropped; elsewhere the rows are deleted. What it rewrites comes from the model's compiled
    SQL (`in_changed_syncs`), else from `changed_runs`. -#}
{% macro clear_changed_syncs() %}
    {%- if not execute or not is_incremental() -%}
        {{ return('') }}
    {%- endif -%}
    {%- set marker = '/* ' ~ sync_logs.changed_runs_marker() -%}
    {%- set compiled = model.get('compiled_code') or '' -%}
    {%- if marker in compiled -%}
        {%- set changed = fromjson(compiled.split(marker)[1].split(' */')[0]) -%}
    {%- else -%}
        {%- set changed = sync_logs.changed_runs() -%}
    {%- endif -%}
    {%- if changed is none -%}
        {% do adapter.dispatch('clear_all_syncs', 'sync_logs')(this) %}
    {%- else -%}
        {%- set keys = [] -%}
        {%- for sync_id in changed.syncs -%}
            {%- do keys.append({'sync_id': sync_id}) -%}
        {%- endfor -%}
        {#- on Spark parquet `changed_runs` appends no run that has rows -#}
        {%- for sync_id, run_ids in changed.appended_runs.items()
            if not sync_logs.is_spark_target(databricks=false) -%}
            {%- for sync_run_id in run_ids -%}
                {%- do keys.append({'sync_id': sync_id, 'sync_run_id': sync_run_id}) -%}
            {%- endfor -%}
        {%- endfor -%}
        {% do sync_logs.delete_partitions(this, keys) %}
    {%- endif -%}
    {{ return('') }}
{% endmacro %}

{% macro spark__clear_all_syncs(relation) %}
    {% do run_query('truncate table ' ~ relation) %}
{% endmacro %}

{% macro default__clear_all_syncs(relation) %}
    {% do run_query('delete from ' ~ relation) %}
{% endmacro %}
