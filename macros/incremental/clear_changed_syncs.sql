{#- Pre-hook of a sync-scoped incremental model: on an incremental build, removes the rows of
    the syncs it rewrites (`changed_sync_ids`; all rows when every sync is rewritten). On Spark
    parquet the syncs' partitions are dropped; elsewhere their rows are deleted. -#}
{% macro clear_changed_syncs() %}
    {%- if not execute or not is_incremental() -%}
        {{ return('') }}
    {%- endif -%}
    {%- set ids = sync_logs.changed_sync_ids() -%}
    {%- if ids is none -%}
        {% do adapter.dispatch('clear_all_syncs', 'sync_logs')(this) %}
    {%- else -%}
        {%- set keys = [] -%}
        {%- for sync_id in ids -%}
            {%- do keys.append({'sync_id': sync_id}) -%}
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
