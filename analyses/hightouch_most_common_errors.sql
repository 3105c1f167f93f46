-- Hightouch, Warehouse Sync Logs: "Get the most common sync error".
--   select failure_reason, count(*) as c from hightouch_audit.sync_snapshot
--   where failure_reason is not null group by failure_reason order by c desc
-- The column is `failed_reason` in Hightouch's own schema (and here). The mart
-- `sync_logs__errors` answers the same question over every attempt, with categories.
-- Reads this package's canonical tables: enabled where the package builds them.
{{ config(enabled=sync_logs.is_spark_target()
    and sync_logs.source_mode() == 'package') }}

select
    failed_reason,
    count(*) as c
from {{ ref('sync_logs', 'sync_snapshot') }}
where failed_reason is not null
group by failed_reason
order by c desc
