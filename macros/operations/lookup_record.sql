{#- `dbt run-operation sync_logs.lookup_record --args '{row_id: "u-42", sync_id: 1203}'`:
    prints one record's full history across runs (the rows of `record_history`: run, status,
    op_type, failure reason, changed fields), oldest first, as a text table; or a line
    saying there is no record. `sync_id` is optional; `max_width` cuts long values. -#}
{% macro lookup_record(row_id=none, sync_id=none, max_width=60) %}
    {%- set usage = "usage: dbt run-operation sync_logs.lookup_record --args "
        ~ "'{row_id: \"u-42\", sync_id: 1203}' (sync_id and max_width are optional)" -%}
    {%- if kwargs -%}
        {{ exceptions.raise_compiler_error(
            "sync_logs.lookup_record: unknown argument(s) " ~ (kwargs.keys() | sort | join(', '))
            ~ "; " ~ usage) }}
    {%- endif -%}
    {%- if row_id is none or row_id is mapping or (row_id is iterable and row_id is not string)
        or (row_id | string | trim) == '' -%}
        {{ exceptions.raise_compiler_error(
            "sync_logs.lookup_record: row_id (the record's identifier) is required and must be "
            ~ "a string or a number; " ~ usage) }}
    {%- endif -%}
    {%- if sync_id is not none and not modules.re.fullmatch('[0-9]+', sync_id | string | trim) -%}
        {{ exceptions.raise_compiler_error(
            "sync_logs.lookup_record: sync_id must be a sync's id (a whole number), got '"
            ~ sync_id ~ "'; " ~ usage) }}
    {%- endif -%}
    {%- if not modules.re.fullmatch('[0-9]+', max_width | string) or (max_width | int) < 10 -%}
        {{ exceptions.raise_compiler_error(
            "sync_logs.lookup_record: max_width must be a whole number of at least 10, got '"
            ~ max_width ~ "'") }}
    {%- endif -%}
    {%- if not execute -%}
        {{ return('') }}
    {%- endif -%}

    {%- for model in ['stg_sync_logs__sync_changelog', 'stg_sync_logs__sync_runs'] -%}
        {%- set relation = ref('sync_logs', model) -%}
        {%- if load_relation(relation) is none -%}
            {{ exceptions.raise_compiler_error(
                "sync_logs.lookup_record reads " ~ relation ~ ", which does not exist: build the "
                ~ "package's staging models first (dbt build -s sync_logs.staging, or the whole "
                ~ "package), with the same target and vars.") }}
        {%- endif -%}
    {%- endfor -%}

    {%- set sync_id = none if sync_id is none else sync_id | string | trim | int -%}
    {%- set where = "row_id '" ~ row_id ~ "'" ~ ("" if sync_id is none else " in sync " ~ sync_id) -%}
    {%- set history = run_query(sync_logs.record_history(row_id, sync_id)) -%}
    {%- if history.rows | length == 0 -%}
        {%- set changelog = ref('sync_logs', 'stg_sync_logs__sync_changelog') -%}
        {%- do print("no record with " ~ where ~ " in " ~ changelog.schema ~ "."
            ~ changelog.identifier ~ " (sync_logs_source: " ~ sync_logs.source_mode() ~ ")") -%}
        {{ return('') }}
    {%- endif -%}

    {%- set columns = ['sync_id', 'sync_run_id', 'run_started_at', 'status', 'op_type',
                       'failed_reason', 'changed_fields'] -%}
    {%- set rows = [] -%}
    {%- for row in history.rows -%}
        {%- set values = [] -%}
        {%- for column in columns -%}
            {%- do values.append(row[column]) -%}
        {%- endfor -%}
        {%- do rows.append(values) -%}
    {%- endfor -%}
    {%- do print("history of " ~ where ~ ": " ~ rows | length ~ " attempt(s), oldest first") -%}
    {%- do print(sync_logs.format_text_table(columns, rows, max_width | int)) -%}
{% endmacro %}
