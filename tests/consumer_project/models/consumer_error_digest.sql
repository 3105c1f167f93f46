-- Errors per category, from the package's most-common-errors mart.
select
    error_category,
    count(*) as num_messages,
    sum(num_attempts) as num_attempts,
    sum(num_rows) as num_rows,
    max(last_seen_at) as last_seen_at
from {{ ref('sync_logs', 'sync_logs__errors') }}
group by error_category
