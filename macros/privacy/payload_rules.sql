{#- The one place the SQL layer reads the payload rules: vars sync_logs_payload_fields_to_drop,
    sync_logs_payload_fields_to_hash, sync_logs_max_payload_bytes and the salt from the
    environment variable SYNC_LOGS_PAYLOAD_HASH_SALT. Returns
    {'drop': [...], 'hash': [...], 'salt': '...', 'max_bytes': int or none, 'active': bool}.
    (The Python models get the same values through their yml config.) -#}
{% macro payload_rules() %}
    {%- set rules = {} -%}
    {%- for kind, name in [('drop', 'sync_logs_payload_fields_to_drop'), ('hash', 'sync_logs_payload_fields_to_hash')] -%}
        {%- set value = var(name, []) -%}
        {%- set value = [] if value is none else ([value] if value is string else value) -%}
        {%- for field in value -%}
            {%- if field is not string or field == '' -%}
                {{ exceptions.raise_compiler_error(
                    "var " ~ name ~ " must be a list of top-level payload field names, got " ~ value) }}
            {%- endif -%}
        {%- endfor -%}
        {%- do rules.update({kind: value | unique | sort | list}) -%}
    {%- endfor -%}
    {%- set both = rules['drop'] | select('in', rules['hash']) | list -%}
    {%- if both -%}
        {{ exceptions.raise_compiler_error(
            "payload field(s) " ~ both ~ " are in both sync_logs_payload_fields_to_drop and "
            ~ "sync_logs_payload_fields_to_hash: name each field in one of them") }}
    {%- endif -%}
    {%- set salt = env_var('SYNC_LOGS_PAYLOAD_HASH_SALT', '') -%}
    {%- if rules['hash'] and not salt -%}
        {{ exceptions.raise_compiler_error(
            "sync_logs_payload_fields_to_hash is set but the salt is empty: set the environment "
            ~ "variable SYNC_LOGS_PAYLOAD_HASH_SALT (a secret string, the same on every build) "
            ~ "for the process that runs dbt") }}
    {%- endif -%}
    {%- set max_bytes = var('sync_logs_max_payload_bytes', none) -%}
    {%- if max_bytes is string and max_bytes.isdigit() -%}
        {%- set max_bytes = max_bytes | int -%}
    {%- endif -%}
    {%- if max_bytes is not none and (max_bytes is not number or max_bytes is sameas true
            or max_bytes is sameas false or max_bytes < 1 or max_bytes != max_bytes | int) -%}
        {{ exceptions.raise_compiler_error(
            "var sync_logs_max_payload_bytes is " ~ tojson(max_bytes) ~ ": set it to a positive "
            ~ "whole number of bytes (e.g. 65536), or null for no limit") }}
    {%- endif -%}
    {%- do rules.update({
        'salt': salt,
        'max_bytes': max_bytes,
        'active': rules['drop'] | length > 0 or rules['hash'] | length > 0 or max_bytes is not none,
    }) -%}
    {{ return(rules) }}
{% endmacro %}
