{{ config(materialized='view') }}

-- Hightouch's sync_snapshot: the rows of int_sync_logs__snapshot still in the model (their latest
-- attempt is not a succeeded removal), with failure_reason repeating failed_reason under the
-- name Hightouch's example queries use. A view: the state is written once, by
-- int_sync_logs__snapshot (sync_logs.canonical.snapshot).
select
    snapshot.sync_run_id,
    snapshot.op_type,
    snapshot.row_id,
    snapshot.status,
    snapshot.failed_reason,
    snapshot.failed_reason as failure_reason,
    snapshot.fields,
    snapshot.split_group,
    snapshot.last_attempted_at,
    snapshot.last_succeeded_at,
    snapshot.first_added_at,
    snapshot.latest_op_type,
    snapshot.sync_id
from {{ ref('int_sync_logs__snapshot') }} as snapshot
where not snapshot.is_removed
