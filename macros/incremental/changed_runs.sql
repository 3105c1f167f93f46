{#- What this build of a sync-scoped incremental model rewrites, from the run fingerprints
    (`int_sync_logs__run_fingerprints`) against those the model's latest completed build
    recorded (`sync_logs_incremental_state`). None when everything is rewritten (not
    incremental, or nothing recorded for the model); else a dict:
    - `syncs`: the sorted ids of the syncs rewritten whole: those with a run whose fingerprint
      is new, changed or gone (new, late, reloaded, cleared and pruned runs, renamed objects);
    - `appended_runs`: for a run-scoped model (`sync_logs_run_scoped`: each row belongs to one
      run and depends on that run and the runs before it), the syncs whose only difference is
      new runs that started after every recorded run of the sync are not rewritten: only
      those runs are written, `{sync_id: [sync_run_id, ...]}`. A late run (one that started
      before a recorded run) changes the later runs' rows (their op_type: the changelog
      recomputes them), so it rewrites its sync.
    One query. -#}
{% macro changed_runs() %}
    {%- if not execute or not is_incremental() -%}
        {{ return(none) }}
    {%- endif -%}
    {%- set state = load_relation(sync_logs.incremental_state_relation()) -%}
    {%- if state is none -%}
        {{ return(none) }}
    {%- endif -%}
    {%- set run_scoped = sync_logs.is_run_scoped(model) -%}
    {%- set changed -%}
        with recorded_runs as (
            select sync_id, sync_run_id, fingerprint
            from {{ state }}
            where model_name = '{{ sync_logs.incremental_state_key(model) }}'
        ),

        current_runs as (
            select
                sync_id,
                sync_run_id,
                run_started_at,
                {{ 'run_fingerprint' if run_scoped else 'fingerprint' }} as fingerprint
            from {{ sync_logs.package_model_relation('int_sync_logs__run_fingerprints') }}
        ),

        runs as (
            select
                coalesce(current_runs.sync_id, recorded_runs.sync_id) as sync_id,
                current_runs.sync_run_id,
                current_runs.run_started_at,
                current_runs.fingerprint,
                recorded_runs.sync_run_id as recorded_sync_run_id,
                recorded_runs.fingerprint as recorded_fingerprint
            from current_runs
            full outer join recorded_runs
                on current_runs.sync_id = recorded_runs.sync_id
                and current_runs.sync_run_id = recorded_runs.sync_run_id
        ),

        {#- the latest start among its sync's recorded runs, in the same pass -#}
        runs_in_sync as (
            select
                runs.*,
                max(case when recorded_sync_run_id is not null then run_started_at end)
                    over (partition by sync_id) as last_recorded_started_at
            from runs
        ),

        differing_runs as (
            select
                sync_id,
                sync_run_id,
                case
                    when recorded_sync_run_id is not null then 2
                    {#- a late run: it started no later than a recorded run of its sync #}
                    when last_recorded_started_at is not null
                        and (run_started_at is null
                            or run_started_at <= last_recorded_started_at)
                        then 2
                    else 1
                end as kind
            from runs_in_sync
            where fingerprint is null
                or recorded_fingerprint is null
                or fingerprint <> recorded_fingerprint
        )

        {#- kind 0: the model has a record at all; 1: a new run; 2: a changed, gone or late run -#}
        select 0 as kind, count(*) as sync_id, cast(null as {{ dbt.type_bigint() }}) as sync_run_id
        from recorded_runs
        union all
        select kind, sync_id, sync_run_id from differing_runs
    {%- endset -%}
    {%- set rows = run_query(changed).rows -%}
    {%- if rows | selectattr(0, 'equalto', 0) | map(attribute=1) | first == 0 -%}
        {{ return(none) }}
    {%- endif -%}
    {%- set rewritten = [] -%}
    {%- for row in rows if row[0] == 2 or (row[0] == 1 and not run_scoped) -%}
        {%- do rewritten.append(row[1] | int) -%}
    {%- endfor -%}
    {%- set appended_runs = {} -%}
    {%- for row in rows if row[0] == 1 and run_scoped and (row[1] | int) not in rewritten -%}
        {%- do appended_runs.setdefault(row[1] | int, []).append(row[2] | int) -%}
    {%- endfor -%}
    {%- for sync_id in appended_runs -%}
        {%- do appended_runs.update({sync_id: appended_runs[sync_id] | sort | list}) -%}
    {%- endfor -%}
    {%- if appended_runs and sync_logs.is_spark_target(databricks=false) -%}
        {#- an insert killed after moving its files and before registering a new sync's
            partition leaves them unseen: register the partitions, so that they count below -#}
        {%- set partitions = [] -%}
        {%- for sync_id in appended_runs | sort -%}
            {%- do partitions.append('partition (sync_id = ' ~ sync_id ~ ')') -%}
        {%- endfor -%}
        {%- do run_query('alter table ' ~ this ~ ' add if not exists ' ~ partitions | join(' ')) -%}
        {%- set written -%}
            select distinct sync_id from {{ this }}
            where {% for sync_id, run_ids in appended_runs | dictsort -%}
                (sync_id = {{ sync_id }} and sync_run_id in ({{ run_ids | join(', ') }})){{ ' or ' if not loop.last }}
            {%- endfor %}
        {%- endset -%}
        {%- for sync_id in run_query(written).columns[0].values() -%}
            {%- do appended_runs.pop(sync_id | int) -%}
            {%- do rewritten.append(sync_id | int) -%}
        {%- endfor -%}
    {%- endif -%}
    {{ return({'syncs': rewritten | unique | sort | list, 'appended_runs': appended_runs}) }}
{% endmacro %}
