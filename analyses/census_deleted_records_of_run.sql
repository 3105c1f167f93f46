-- Census, Warehouse Writeback: "records that Census deleted on a recent sync run".
--   select * from census.census.sync_log log
--   left join census.census.source_objects source on log.source_object_id = source.id
--   where log.sync_run_id = 5678 and log.operation = 'delete';
-- Set var `sync_logs_example_sync_run_id` to your run; by default, the latest run (by start
-- time) that deleted anything.
-- Reads this package's canonical tables: enabled where the package builds them.
{{ config(enabled=sync_logs.is_spark_target()
    and sync_logs.source_mode() == 'package') }}

{%- set sync_run_id = var('sync_logs_example_sync_run_id') %}

with deletes as (
    select
        sync_log.log_id,
        sync_log.sync_id,
        sync_log.sync_run_id,
        sync_log.record_identifier,
        sync_log.batch_started_at,
        sync_log.status,
        sync_log.status_message,
        sync_log.source_object_id
    from {{ ref('sync_logs', 'sync_log') }} as sync_log
    where sync_log.operation = 'delete'
),

chosen_run as (
    {%- if sync_run_id is not none %}
    select {{ sync_run_id | int }} as sync_run_id
    {%- else %}
    select max(deletes.sync_run_id) as sync_run_id
    from deletes
    where deletes.batch_started_at = (
        select max(latest.batch_started_at) as batch_started_at
        from deletes as latest
    )
    {%- endif %}
)

select
    deletes.log_id,
    deletes.sync_id,
    deletes.sync_run_id,
    deletes.record_identifier,
    deletes.status,
    deletes.status_message,
    source_objects.type as source_object_type,
    source_objects.name as source_object_name
from deletes
inner join chosen_run
    on deletes.sync_run_id = chosen_run.sync_run_id
left join {{ ref('sync_logs', 'source_objects') }} as source_objects
    on deletes.source_object_id = source_objects.id
