-- Attempts per sync and status, straight from the package's changelog.
select
    sync_id,
    status,
    count(*) as num_attempts,
    count(distinct sync_run_id) as num_runs
from {{ ref('sync_changelog') }}
group by sync_id, status
