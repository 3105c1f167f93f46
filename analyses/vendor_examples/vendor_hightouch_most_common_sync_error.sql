{{ config(enabled=var('sync_logs_vendor_examples', false)
    and target.type in ['sparksession', 'spark', 'databricks']
    and var('sync_logs_source', 'package') == 'package') }}
{#- Hightouch, Warehouse Sync Logs, "Get the most common sync error". The vendor's text
    verbatim, its constants included; only the relation names (`hightouch_audit.sync_snapshot`)
    are replaced by the package's relations (README, "Vendor queries"). Off unless var
    `sync_logs_vendor_examples` is true; the analyses one folder up answer the same question
    adapted for use. -#}
select
  failure_reason,
  count(*) as c
from {{ ref('sync_logs', 'sync_snapshot') }}
where failure_reason is not null
group by failure_reason
order by c desc
