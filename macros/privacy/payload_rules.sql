{#- The one place the SQL layer reads the payload rules: vars sync_logs_payload_fields_to_drop,
    sync_logs_payload_fields_to_hash, sync_logs_max_payload_bytes and the salt from the
    environment variable SYNC_LOGS_PAYLOAD_HASH_SALT. Returns
    {'drop': [...], 'hash': [...], 'salt': '...', 'max_bytes': int or none, 'active': bool};
    raises a compilation error where `payload_rules_from` finds a problem. (The Python models
    get the same values through their yml config.) -#}
{% macro payload_rules() %}
    {%- set rules = sync_logs.payload_rules_from(
        var('sync_logs_payload_fields_to_drop'),
        var('sync_logs_payload_fields_to_hash'),
        env_var('SYNC_LOGS_PAYLOAD_HASH_SALT', ''),
        var('sync_logs_max_payload_bytes')) -%}
    {%- if rules['problem'] is not none -%}
        {{ exceptions.raise_compiler_error(rules['problem']) }}
    {%- endif -%}
    {{ return(rules) }}
{% endmacro %}
