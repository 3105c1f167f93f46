{#- `dbt run-operation sync_logs.prune_sync_logs [--args '{dry_run: true, as_of: "2026-10-09"}']`:
    deletes the record history (sync_changelog, and so the sync_log view; Census's sync_log in
    mode `census`) of active syncs older than var `sync_logs_retention_days`, keeping the
    anchor rows that the current-state tables and marts are derived from (see
    `retention_doomed_rows_sql`). Logs, per sync, the rows and runs deleted (or, with
    `dry_run`, that would be) and the runs left without any row. Returns the per-sync counts. -#}
{% macro prune_sync_logs(dry_run=false, as_of=none) %}
    {%- if not execute -%}
        {{ return([]) }}
    {%- endif -%}
    {%- set settings = sync_logs.retention_settings(as_of) -%}
    {%- if settings.retention_days is none -%}
        {{ log("sync_logs retention: sync_logs_retention_days is null, all history is kept", info=true) }}
        {{ return([]) }}
    {%- endif -%}
    {%- set target = sync_logs.retention_target() -%}
    {%- if target is none -%}
        {{ exceptions.raise_compiler_error(
            "prune_sync_logs: the history table of sync_logs_source '" ~ sync_logs.source_mode()
            ~ "' does not exist yet; build the package first (dbt build -s package:sync_logs).") }}
    {%- endif -%}
    {%- set doomed_sql = sync_logs.retention_doomed_rows_sql(settings) -%}
    {%- set verb = 'would delete' if dry_run else 'deleted' -%}
    {%- if dry_run -%}
        {%- set summary = sync_logs.retention_summary(target, '(' ~ doomed_sql ~ ')') -%}
    {%- else -%}
        {%- set doomed = api.Relation.create(
            database=target.database, schema=target.schema, identifier='sync_logs_retention_doomed',
            type='table') -%}
        {%- do sync_logs.retention_execute('sync_logs_retention_drop', 'drop table if exists ' ~ doomed) -%}
        {%- do sync_logs.retention_stage_table(doomed, doomed_sql) -%}
        {%- set summary = sync_logs.retention_summary(target, doomed) -%}
        {%- if summary -%}
            {%- do sync_logs.retention_delete(target, doomed) -%}
        {%- endif -%}
        {%- do sync_logs.retention_execute('sync_logs_retention_drop', 'drop table if exists ' ~ doomed) -%}
    {%- endif -%}
    {{ log("sync_logs retention: " ~ target ~ ", history before " ~ settings.retention_days
        ~ " days before " ~ (settings.as_of or 'now') ~ ", active syncs only"
        ~ (" (dry run: nothing deleted)" if dry_run else ""), info=true) }}
    {%- for row in summary -%}
        {{ log("sync_logs retention: sync " ~ row.sync_id ~ ": " ~ verb ~ " " ~ row.num_rows
            ~ " rows in " ~ row.num_runs ~ " runs (" ~ row.num_emptied_runs ~ " runs left without rows)",
            info=true) }}
    {%- else -%}
        {{ log("sync_logs retention: nothing to delete", info=true) }}
    {%- endfor -%}
    {{ return(summary) }}
{% endmacro %}
