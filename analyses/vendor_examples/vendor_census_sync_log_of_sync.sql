{{ config(enabled=var('sync_logs_vendor_examples')
    and sync_logs.is_spark_target()
    and sync_logs.source_mode() == 'package') }}
{#- Census, Warehouse Writeback, "Example SQL Queries": all rows synced by sync 1234. The
    vendor's text verbatim, its constants included; only the relation names
    (`CENSUS.CENSUS.SYNC_LOG`, `CENSUS.CENSUS.SOURCE_OBJECTS`) are replaced by the package's
    relations (docs/operations.md, "Vendor queries"). Off unless var `sync_logs_vendor_examples` is true;
    the analyses one folder up answer the same question adapted for use. -#}
SELECT * 
FROM {{ ref('sync_logs', 'sync_log') }} log
LEFT JOIN {{ ref('sync_logs', 'source_objects') }} source
ON log.source_object_id = source.id
WHERE log.sync_id = 1234;
