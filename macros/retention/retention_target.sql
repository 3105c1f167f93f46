{#- The table that holds the record history pruning deletes from: `sync_changelog` (this
    package's model in mode `package`, the `sync_logs_tables` source in mode `tables`; in
    mode `package` the `sync_log` view reads it) or Census's `sync_log` in mode `census`.
    Returns the relation as the warehouse describes it (on Spark: `is_delta`), or none when
    it does not exist. Mode `hightouch` raises: Hightouch's own retention setting applies. -#}
{% macro retention_target() %}
    {%- set mode = sync_logs.source_mode() -%}
    {%- if mode == 'hightouch' -%}
        {{ exceptions.raise_compiler_error(
            "prune_sync_logs does not delete from Hightouch's hightouch_audit tables, which Hightouch "
            ~ "writes and prunes itself: set the retention of Warehouse Sync Logs in Hightouch, or load "
            ~ "the tables elsewhere and use sync_logs_source 'tables'.") }}
    {%- elif mode == 'census' -%}
        {%- set named = source('sync_logs_census', 'sync_log') -%}
    {%- else -%}
        {%- set named = sync_logs.retention_relation('sync_changelog') -%}
    {%- endif -%}
    {{ return(adapter.get_relation(database=named.database, schema=named.schema, identifier=named.identifier)) }}
{% endmacro %}
