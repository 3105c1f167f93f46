-- Attempts per sync and status, from the package's staged changelog (a single-argument ref
-- into the package; the staging layer exists whatever `sync_logs_source` is).
select
    sync_id,
    status,
    count(*) as num_attempts,
    count(distinct sync_run_id) as num_runs
from {{ ref('stg_sync_logs__sync_changelog') }}
group by sync_id, status
