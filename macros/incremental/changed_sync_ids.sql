{#- The syncs a sync-scoped incremental model rebuilds in this build: those with a run whose
    fingerprint (`int_sync_logs__run_fingerprints`) is new, differs from, or is missing from
    the fingerprints the model's latest completed build recorded (`sync_logs_incremental_state`):
    new, late, reloaded, cleared and pruned runs, renamed objects. A sorted list of ids; none
    when every sync is rebuilt (not incremental, or nothing recorded for the model). One query. -#}
{% macro changed_sync_ids() %}
    {%- if not execute or not is_incremental() -%}
        {{ return(none) }}
    {%- endif -%}
    {%- set state = load_relation(sync_logs.incremental_state_relation()) -%}
    {%- if state is none -%}
        {{ return(none) }}
    {%- endif -%}
    {%- set changed -%}
        with recorded_runs as (
            select sync_id, sync_run_id, fingerprint
            from {{ state }}
            where model_name = '{{ this.identifier }}'
        ),

        changed_syncs as (
            select distinct coalesce(current_runs.sync_id, recorded_runs.sync_id) as sync_id
            from {{ sync_logs.package_model_relation('int_sync_logs__run_fingerprints') }} as current_runs
            full outer join recorded_runs
                on current_runs.sync_id = recorded_runs.sync_id
                and current_runs.sync_run_id = recorded_runs.sync_run_id
            where current_runs.fingerprint is null
                or recorded_runs.fingerprint is null
                or current_runs.fingerprint <> recorded_runs.fingerprint
        )

        {#- the first row tells whether the model has a record at all -#}
        select 0 as is_sync, count(*) as value from recorded_runs
        union all
        select 1 as is_sync, sync_id as value from changed_syncs
    {%- endset -%}
    {%- set rows = run_query(changed).rows -%}
    {%- if rows | selectattr(0, 'equalto', 0) | map(attribute=1) | first == 0 -%}
        {{ return(none) }}
    {%- endif -%}
    {{ return(rows | selectattr(0, 'equalto', 1) | map(attribute=1) | map('int') | sort | list) }}
{% endmacro %}
