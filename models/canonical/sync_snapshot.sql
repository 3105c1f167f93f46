{{ config(materialized='view') }}

-- The latest state of every row per sync; rows whose latest attempt removed them are absent.
-- failure_reason repeats failed_reason under the name Hightouch's example queries use.
select
    sync_id,
    sync_run_id,
    op_type,
    row_id,
    status,
    failed_reason,
    failed_reason as failure_reason,
    fields,
    split_group,
    last_attempted_at,
    last_succeeded_at,
    first_added_at,
    latest_op_type
from {{ ref('int_sync_logs__snapshot') }}
where not is_removed
