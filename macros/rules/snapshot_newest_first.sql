{#- The order-by list that puts a row's newest attempt first, as `attempt_order` in
    sync_logs.canonical.ordering: by run (`run_started_at`, `sync_run_id`), then by when the
    batch was sent (an unsent batch is the run's latest), then `log_id`. For relations with
    those columns (the snapshot of the SQL source modes). -#}
{% macro snapshot_newest_first() -%}
    {{ return('run_started_at desc, sync_run_id desc, '
        ~ 'case when batch_started_at is null then 0 else 1 end, batch_started_at desc, log_id desc') }}
{%- endmacro %}
