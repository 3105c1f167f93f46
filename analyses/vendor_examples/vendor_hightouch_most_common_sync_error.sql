{{ config(enabled=var('sync_logs_vendor_examples')
    and sync_logs.is_spark_target()
    and sync_logs.source_mode() == 'package') }}
{#- Hightouch, Warehouse Sync Logs, "Get the most common sync error". The vendor's text
    verbatim, its constants included; only the relation names (`hightouch_audit.sync_snapshot`)
    are replaced by the package's relations (docs/operations.md, "Vendor queries"). Off unless var
    `sync_logs_vendor_examples` is true; the analyses one folder up answer the same question
    adapted for use. -#}
select
  failure_reason,
  count(*) as c
from {{ ref('sync_logs', 'sync_snapshot') }}
where failure_reason is not null
group by failure_reason
order by c desc
