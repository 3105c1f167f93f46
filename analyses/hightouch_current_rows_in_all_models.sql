-- Hightouch, Warehouse Sync Logs: "Get the current rows in all models" (most recently
-- synced rows that did not fail), e.g. the members of every audience.
-- Hightouch's query keeps one row per (user, model) with `qualify row_number()`; a distinct
-- select says the same on every warehouse. The mart `sync_logs__current_members` adds when
-- each row entered.
-- Reads this package's canonical tables: enabled where the package builds them.
{{ config(enabled=sync_logs.is_spark_target()
    and sync_logs.source_mode() == 'package') }}

with model_names as (
    select distinct
        sync_id,
        model_name
    from {{ ref('sync_logs', 'sync_runs') }}
)

select distinct
    model_names.model_name,
    snapshot.row_id as user_id
from {{ ref('sync_logs', 'sync_snapshot') }} as snapshot
inner join model_names
    on snapshot.sync_id = model_names.sync_id
where snapshot.status <> 'failed'
