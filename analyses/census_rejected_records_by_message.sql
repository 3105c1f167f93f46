-- Census, Sync Tracking: "find all records that have failed and group by error message",
-- which Census runs with duckdb over one run folder of the bucket:
--   select status_message, array_agg(identifier) as rejected_records
--   from read_parquet('s3://your_bucket/sync_tracking_datasets/1/2/3/*.parquet',
--                     union_by_name=True)
--   where status = 'rejected' group by 1
-- Here over the loaded `sync_log`, every run at once, or one run with var
-- `sync_logs_example_sync_run_id`.
-- Reads this package's canonical tables: enabled where the package builds them.
{{ config(enabled=sync_logs.is_spark_target()
    and sync_logs.source_mode() == 'package') }}

{%- set sync_run_id = var('sync_logs_example_sync_run_id') %}

select
    status_message,
    array_agg(record_identifier) as rejected_records
from {{ ref('sync_logs', 'sync_log') }}
where
    status = 'rejected'
    {%- if sync_run_id is not none %}
    and sync_run_id = {{ sync_run_id | int }}
    {%- endif %}
group by status_message
