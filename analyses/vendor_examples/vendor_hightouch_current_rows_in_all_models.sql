{{ config(enabled=var('sync_logs_vendor_examples')
    and sync_logs.is_spark_target()
    and sync_logs.source_mode() == 'package') }}
{#- Hightouch, Warehouse Sync Logs, "Get the current rows in all models". The vendor's text
    verbatim, its constants included; only the relation names (`hightouch_audit.sync_snapshot`,
    `hightouch_audit.sync_runs`) are replaced by the package's relations (docs/operations.md, "Vendor
    queries"). Off unless var `sync_logs_vendor_examples` is true; the analyses one folder up
    answer the same question adapted for use. -#}
with model_names as (
  select distinct
    sync_id,
    model_name
  from {{ ref('sync_logs', 'sync_runs') }}
)

select
  model_name,
  row_id as user_id
from {{ ref('sync_logs', 'sync_snapshot') }} s
join model_names r on s.sync_id = r.sync_id
where s.status != 'failed'
qualify row_number() over (partition by user_id, model_name order by null) = 1
order by user_id
