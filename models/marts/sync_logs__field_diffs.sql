{#- What changed in each row between consecutive runs: one row per field whose value differs
    from the row's payload in the previous run that planned it (run order: start time, then
    run id), including fields that appeared or disappeared. Values compare null-safely, so a
    change to or from null is a change. Removals are not payload versions and are skipped.
    Run-scoped: a sync's new runs are written alone, from their rows' earlier versions
    (`sync_scoped_storage`). -#}
{%- set changed = sync_logs.changed_runs() %}
{%- set written = sync_logs.in_changed_syncs(changed=changed) %}
{#- new runs of syncs not rewritten whole: only the earlier versions of their rows are read -#}
{%- set reads_written_rows = changed and changed.appended_runs %}
{{ config(enabled=var('sync_logs_field_diffs_enabled'), **sync_logs.sync_scoped_storage(run_scoped=true)) }}

with changelog as (
    select
        log_id,
        sync_id,
        sync_run_id,
        row_id,
        op_type,
        fields,
        batch_started_at
    from {{ ref('stg_sync_logs__sync_changelog') }}
    where {{ sync_logs.row_version_candidate() }}
        and {{ sync_logs.in_changed_syncs(changed=changed, whole_syncs=true) }}
),
{%- if reads_written_rows %}

{#- the earlier versions of the rows the new runs hold, not the whole history of their syncs -#}
written_rows as (
    select distinct
        sync_id,
        row_id
    from changelog
    where {{ written }}
),
{%- endif %}

runs as (
    select
        sync_id,
        sync_run_id,
        started_at
    from {{ ref('stg_sync_logs__sync_runs') }}
),

attempts as (
    select
        changelog.log_id,
        changelog.sync_id,
        changelog.row_id,
        changelog.sync_run_id,
        changelog.op_type,
        changelog.fields,
        runs.started_at as run_started_at,
        coalesce(changelog.batch_started_at, runs.started_at) as attempted_at
    from changelog
    inner join runs
        on changelog.sync_id = runs.sync_id
        and changelog.sync_run_id = runs.sync_run_id
    {%- if reads_written_rows %}
    inner join written_rows
        on changelog.sync_id = written_rows.sync_id
        and changelog.row_id = written_rows.row_id
    {%- endif %}
),

{#- A row's attempts in run order, each run's version first (macro `row_version_first`, as in
    `int_sync_logs__row_runs`). One window over the payloads
    (no join of the row runs to them), whose order the next one reuses. -#}
ordered_attempts as (
    select
        sync_id,
        row_id,
        sync_run_id,
        op_type,
        fields,
        run_started_at,
        attempted_at,
        lag(sync_run_id) over (
            partition by sync_id, row_id
            order by run_started_at, sync_run_id, {{ sync_logs.row_version_first() }}
        ) as preceding_sync_run_id
    from attempts
),

planned as (
    select
        sync_id,
        row_id,
        sync_run_id,
        run_started_at,
        attempted_at,
        fields
    from ordered_attempts
    where (preceding_sync_run_id is null or preceding_sync_run_id <> sync_run_id)
        and op_type <> 'removed'
),

versions as (
    select
        sync_id,
        row_id,
        sync_run_id,
        run_started_at,
        attempted_at,
        fields,
        lag(fields) over (
            partition by sync_id, row_id order by run_started_at, sync_run_id
        ) as previous_fields,
        lag(sync_run_id) over (
            partition by sync_id, row_id order by run_started_at, sync_run_id
        ) as previous_sync_run_id
    from planned
),

changed_versions as (
    select
        sync_id,
        row_id,
        sync_run_id,
        run_started_at,
        attempted_at,
        previous_sync_run_id,
        fields,
        previous_fields
    from versions
    where previous_sync_run_id is not null
        and {{ sync_logs.is_distinct_from('fields', 'previous_fields') }}
        and {{ written }}
),

compared as (
    {{ sync_logs.json_object_diff(
        'changed_versions', 'fields', 'previous_fields',
        keys=['sync_id', 'row_id', 'sync_run_id'],
        columns=['sync_id', 'row_id', 'sync_run_id', 'previous_sync_run_id', 'run_started_at',
                 'attempted_at']) | indent(4) }}
)

select
    compared.sync_id,
    syncs.model_name,
    compared.row_id,
    compared.sync_run_id,
    compared.previous_sync_run_id,
    compared.run_started_at,
    compared.attempted_at as changed_at,
    compared.field_name,
    compared.change_type,
    compared.old_value,
    compared.new_value
from compared
left join {{ ref('int_sync_logs__syncs') }} as syncs
    on compared.sync_id = syncs.sync_id
