{{ config(enabled=var('sync_logs_vendor_examples')
    and sync_logs.is_spark_target()
    and sync_logs.source_mode() == 'package') }}
{#- Hightouch, Warehouse Sync Logs, "Track when users entered and exited a model". The vendor's
    text verbatim, its constants included; only the relation names
    (`hightouch_audit.sync_changelog`, `hightouch_audit.sync_runs`) are replaced by the
    package's relations (docs/operations.md, "Vendor queries"). Off unless var `sync_logs_vendor_examples`
    is true; the analyses one folder up answer the same question adapted for use. -#}
with details as (
  select
    model_name,
    row_id,
    op_type as type,
    started_at as timestamp,
    lag(op_type) over(partition by model_name, row_id order by started_at) as lag_type
  from {{ ref('sync_logs', 'sync_changelog') }} c
  join {{ ref('sync_logs', 'sync_runs') }} r on c.sync_id = r.sync_id
  where op_type != 'changed'
  order by model_name, row_id
)

select
  row_id as user_id,
  model_name as audience,
  type,
  timestamp
from details
where (lag_type != type or lag_type is null)
order by model_name, row_id, timestamp
