{#- The text every truncation marker starts with, `{"_sync_logs_truncated":true,` (the marker:
    see `truncate_payload`): the one place the SQL layer writes it, for the macros that write
    and recognise the marker. The Python models write the same bytes
    (sync_logs.canonical.payloads; tests/data/payload_rules.csv holds both to them). -#}
{% macro truncation_marker_start() -%}
    {{ return('{"_sync_logs_truncated":true,') }}
{%- endmacro %}
