-- Hightouch, Warehouse Sync Logs: "Track when users entered and exited a model".
-- Hightouch's query joins the changelog to the runs on sync_id alone, which repeats every
-- change once per run of the sync; the join here is on the run. The mart
-- `sync_logs__audience_events` answers the same question counting only succeeded changes.
-- Reads this package's canonical tables: enabled where the package builds them.
{{ config(enabled=sync_logs.is_spark_target()
    and sync_logs.source_mode() == 'package') }}

with details as (
    select
        runs.model_name,
        changelog.row_id,
        changelog.op_type as type,
        runs.started_at as event_timestamp,
        lag(changelog.op_type) over (
            partition by runs.model_name, changelog.row_id
            order by runs.started_at, changelog.sync_run_id
        ) as lag_type
    from {{ ref('sync_logs', 'sync_changelog') }} as changelog
    inner join {{ ref('sync_logs', 'sync_runs') }} as runs
        on
            changelog.sync_id = runs.sync_id
            and changelog.sync_run_id = runs.sync_run_id
    where changelog.op_type <> 'changed'
)

select
    row_id as user_id,
    model_name as audience,
    type,
    event_timestamp
from details
where (lag_type <> type or lag_type is null)
order by audience, user_id, event_timestamp
