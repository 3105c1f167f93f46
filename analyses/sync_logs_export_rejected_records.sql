-- A sample of the records of one run that the destination rejected (status `failed`) or
-- that were never sent because their identifier was null or duplicated (status `invalid`),
-- with their payloads: to hand to the team that owns the source data, as CSV
-- (`sync-logs export-csv`, see docs/monitoring.md). One run: var `sync_logs_export_sync_run_id`,
-- by default the latest run (by start time, then run id) that has such records; at most
-- var `sync_logs_export_limit` records (default 1000), ordered by status, failure reason,
-- identifier (nulls last) and log id. Reads the staged changelog: works in every source mode.
{%- set sync_run_id = var('sync_logs_export_sync_run_id') %}
{%- set limit = var('sync_logs_export_limit') %}
{%- if not modules.re.fullmatch('[0-9]+', limit | string) or limit | int < 1 %}
    {{ exceptions.raise_compiler_error(
        "var sync_logs_export_limit must be a whole number of at least 1, got '" ~ limit ~ "'") }}
{%- endif %}
{%- if sync_run_id is not none and not modules.re.fullmatch('[0-9]+', sync_run_id | string) %}
    {{ exceptions.raise_compiler_error(
        "var sync_logs_export_sync_run_id must be a run's id (a whole number), got '"
        ~ sync_run_id ~ "'") }}
{%- endif %}

with rejected as (
    select
        changelog.log_id,
        changelog.sync_id,
        changelog.sync_run_id,
        runs.started_at as run_started_at,
        runs.model_name,
        changelog.row_id,
        changelog.op_type,
        changelog.status,
        changelog.raw_status,
        changelog.failed_reason,
        changelog.batch_started_at,
        changelog.fields
    from {{ ref('sync_logs', 'stg_sync_logs__sync_changelog') }} as changelog
    inner join {{ ref('sync_logs', 'stg_sync_logs__sync_runs') }} as runs
        on changelog.sync_id = runs.sync_id
        and changelog.sync_run_id = runs.sync_run_id
    where changelog.status in ('failed', 'invalid')
),

chosen_run as (
    {%- if sync_run_id is not none %}
    select {{ sync_run_id | int }} as sync_run_id
    {%- else %}
    select max(rejected.sync_run_id) as sync_run_id
    from rejected
    where rejected.run_started_at = (
        select max(latest.run_started_at) as run_started_at
        from rejected as latest
    )
    {%- endif %}
)

select
    rejected.sync_id,
    rejected.model_name,
    rejected.sync_run_id,
    rejected.run_started_at,
    rejected.row_id,
    rejected.op_type,
    rejected.status,
    rejected.raw_status,
    rejected.failed_reason,
    rejected.batch_started_at,
    rejected.fields as payload,
    rejected.log_id
from rejected
inner join chosen_run
    on rejected.sync_run_id = chosen_run.sync_run_id
order by
    rejected.status,
    rejected.failed_reason nulls last,
    rejected.row_id nulls last,
    rejected.log_id
limit {{ limit | int }}
