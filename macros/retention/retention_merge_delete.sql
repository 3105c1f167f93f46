{#- Delta (Spark with Delta Lake, Databricks): delete the listed rows with MERGE. -#}
{% macro retention_merge_delete(target, doomed) %}
    {%- call statement('sync_logs_retention_merge_delete') -%}
        merge into {{ target }} as sync_logs_target
        using {{ doomed }} as sync_logs_doomed
            on sync_logs_target.sync_id = sync_logs_doomed.sync_id
            and sync_logs_target.sync_run_id = sync_logs_doomed.sync_run_id
            and cast(sync_logs_target.log_id as string) = sync_logs_doomed.log_id
        when matched then delete
    {%- endcall -%}
{% endmacro %}
