{#- The payload rules from their settings as `payload_rules` reads them (the vars' values and
    the salt), the same checks and messages as `payload_rules` in sync_logs.canonical.payloads
    (tests/data/payload_rule_errors.csv holds both to one table of cases). Returns
    {'drop': [...], 'hash': [...], 'salt': '...', 'max_bytes': int or none, 'active': bool,
    'problem': the message of the first setting that cannot be applied safely, or none}. -#}
{% macro payload_rules_from(fields_to_drop, fields_to_hash, salt, max_payload_bytes) %}
    {%- set rules = {'problem': none} -%}
    {%- for kind, name, value in [
            ('drop', 'sync_logs_payload_fields_to_drop', fields_to_drop),
            ('hash', 'sync_logs_payload_fields_to_hash', fields_to_hash)] -%}
        {%- set value = [] if value is none else ([value] if value is string else value) -%}
        {%- if rules['problem'] is none and (value is not iterable or value is mapping
                or value | reject('string') | list or '' in value) -%}
            {%- do rules.update({'problem': name ~ " must be a list of top-level field names, got "
                ~ tojson(value)}) -%}
        {%- endif -%}
        {%- do rules.update({kind: (value | unique | sort | list) if rules['problem'] is none else []}) -%}
    {%- endfor -%}
    {%- set both = rules['drop'] | select('in', rules['hash']) | list -%}
    {%- if rules['problem'] is none and both -%}
        {%- do rules.update({'problem': "payload field(s) " ~ tojson(both) ~ " are in both "
            ~ "sync_logs_payload_fields_to_drop and sync_logs_payload_fields_to_hash: name each "
            ~ "field in one of them"}) -%}
    {%- endif -%}
    {%- set salt = salt or '' -%}
    {%- if rules['problem'] is none and rules['hash'] and not salt -%}
        {%- do rules.update({'problem': "sync_logs_payload_fields_to_hash is set but the salt is "
            ~ "empty: set the environment variable SYNC_LOGS_PAYLOAD_HASH_SALT (a secret string, "
            ~ "the same on every build) for the process that runs dbt"}) -%}
    {%- endif -%}
    {%- set max_bytes = max_payload_bytes -%}
    {%- if max_bytes is string and max_bytes.isdigit() -%}
        {%- set max_bytes = max_bytes | int -%}
    {%- endif -%}
    {%- if rules['problem'] is none and max_bytes is not none and (max_bytes is not number
            or max_bytes is sameas true or max_bytes is sameas false or max_bytes < 1
            or max_bytes != max_bytes | int) -%}
        {%- do rules.update({'problem': "var sync_logs_max_payload_bytes is " ~ tojson(max_bytes)
            ~ ": set it to a positive whole number of bytes (e.g. 65536), or null for no limit"}) -%}
    {%- endif -%}
    {%- do rules.update({
        'salt': salt,
        'max_bytes': max_bytes,
        'active': rules['drop'] | length > 0 or rules['hash'] | length > 0 or max_bytes is not none,
    }) -%}
    {{ return(rules) }}
{% endmacro %}
