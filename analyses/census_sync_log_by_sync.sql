-- Census, Warehouse Writeback: "all rows that have been synced by a specific sync
-- configuration ID", the sync log joined to the source objects.
--   select * from census.census.sync_log log
--   left join census.census.source_objects source on log.source_object_id = source.id
--   where log.sync_id = 1234;
-- Set var `sync_logs_example_sync_id` to your sync; by default, the sync with the highest id.
-- Reads this package's canonical tables: enabled where the package builds them.
{{ config(enabled=sync_logs.is_spark_target()
    and sync_logs.source_mode() == 'package') }}

{%- set sync_id = var('sync_logs_example_sync_id') %}

select
    sync_log.log_id,
    sync_log.sync_id,
    sync_log.sync_run_id,
    sync_log.record_identifier,
    sync_log.record_payload,
    sync_log.batch_started_at,
    sync_log.batch_completed_at,
    sync_log.operation,
    sync_log.status,
    sync_log.status_message,
    sync_log.destination_id,
    sync_log.destination_object_id,
    sync_log.source_id,
    sync_log.source_object_id,
    source_objects.type as source_object_type,
    source_objects.name as source_object_name,
    source_objects.model_id as source_object_model_id
from {{ ref('sync_logs', 'sync_log') }} as sync_log
left join {{ ref('sync_logs', 'source_objects') }} as source_objects
    on sync_log.source_object_id = source_objects.id
{%- if sync_id is not none %}
where sync_log.sync_id = {{ sync_id | int }}
{%- else %}
where sync_log.sync_id = (
    select max(all_logs.sync_id) as sync_id
    from {{ ref('sync_logs', 'sync_log') }} as all_logs
)
{%- endif %}
