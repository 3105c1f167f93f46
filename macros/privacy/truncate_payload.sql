{#- A payload (JSON text) longer than `max_bytes` UTF-8 bytes, as the truncation marker
    `truncation_marker_start` "original_bytes":<size>,"sha256":"<hex>"}, written byte for byte
    as the Python models write it; shorter payloads unchanged. -#}
{% macro truncate_payload(payload, max_bytes) %}
    {{ return(adapter.dispatch('truncate_payload', 'sync_logs')(payload, max_bytes)) }}
{% endmacro %}

{% macro default__truncate_payload(payload, max_bytes) -%}
    {{ exceptions.raise_compiler_error(
        "sync_logs: sync_logs_max_payload_bytes is applied in SQL on PostgreSQL only, not on "
        ~ target.type ~ "; apply it where the tables are loaded (sync_logs_source 'package' on "
        ~ "Spark or Databricks), or unset the var.") }}
{%- endmacro %}

{% macro postgres__truncate_payload(payload, max_bytes) -%}
    case
        when octet_length(convert_to({{ payload }}, 'UTF8')) > {{ max_bytes | int }}
            then '{{ sync_logs.truncation_marker_start() }}"original_bytes":'
            || cast(octet_length(convert_to({{ payload }}, 'UTF8')) as text)
            || ',"sha256":"' || encode(sha256(convert_to({{ payload }}, 'UTF8')), 'hex') || '"}'
        else {{ payload }}
    end
{%- endmacro %}
