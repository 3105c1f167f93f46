{#- The payload rules (see payload_rules) applied to a payload held as JSON text, in the
    staging layer of the SQL source modes (`tables`, `hightouch`, `census`), so that no model
    of this package stores what they remove. In mode `package` the Python models applied them
    before anything was written: the expression is returned unchanged. With no rule set it is
    returned unchanged on every warehouse. -#}
{% macro protect_payload(payload) %}
    {%- set rules = sync_logs.payload_rules() -%}
    {%- if sync_logs.source_mode() == 'package' or not rules['active'] -%}
        {{ return(payload) }}
    {%- endif -%}
    {{ return(adapter.dispatch('protect_payload', 'sync_logs')(payload, rules)) }}
{% endmacro %}

{% macro default__protect_payload(payload, rules) -%}
    {{ exceptions.raise_compiler_error(
        "sync_logs: the payload rules (sync_logs_payload_fields_to_drop, "
        ~ "sync_logs_payload_fields_to_hash, sync_logs_max_payload_bytes) are applied in SQL on "
        ~ "PostgreSQL only, not on " ~ target.type ~ ". Apply them where the tables are loaded "
        ~ "(this package's Python models with sync_logs_source 'package' on Spark or Databricks), "
        ~ "or unset these vars.") }}
{%- endmacro %}

{#- PostgreSQL: a payload that is a JSON object holding a named field is rewritten with jsonb
    (which re-serialises it: key order and spacing are jsonb's); hashed values are
    sha256(salt || value) of the value as `->>` on json returns it (a string's text, any other
    value's JSON text as written), the same text the Python models hash. A payload that is
    JSON but not an object becomes its salted SHA-256. Text that is not JSON fails the query,
    as it does in the field-level marts. -#}
{% macro postgres__protect_payload(payload, rules) -%}
    {%- set p = '(' ~ payload ~ ')' -%}
    {%- set salt = "'" ~ rules['salt'] | replace("'", "''") ~ "'" -%}
    {%- set names = rules['drop'] + rules['hash'] -%}
    {%- set protected -%}
    {%- if names -%}
        case
            when {{ p }} is null or btrim({{ p }}) = '' then {{ p }}
            when jsonb_typeof(cast({{ p }} as jsonb)) <> 'object'
                then encode(sha256(convert_to({{ salt }} || {{ p }}, 'UTF8')), 'hex')
            when cast({{ p }} as jsonb) ?| array[
                {%- for name in names %}'{{ name | replace("'", "''") }}'{{ ", " if not loop.last }}{% endfor -%}
            ]
                then cast(
                    (cast({{ p }} as jsonb)
                    {%- for name in rules['drop'] %} - '{{ name | replace("'", "''") }}'{% endfor -%}
                    )
                    {%- if rules['hash'] %}
                    || jsonb_strip_nulls(jsonb_build_object(
                        {%- for name in rules['hash'] %}
                        '{{ name | replace("'", "''") }}',
                        encode(sha256(convert_to(
                            {{ salt }} || (cast({{ p }} as json) ->> '{{ name | replace("'", "''") }}'), 'UTF8'
                        )), 'hex'){{ "," if not loop.last }}
                        {%- endfor %}
                    ))
                    {%- endif %}
                    as text)
            else {{ p }}
        end
    {%- else -%}
        {{ p }}
    {%- endif -%}
    {%- endset -%}
    {%- if rules['max_bytes'] is none -%}
        {{ protected }}
    {%- else -%}
        {{ sync_logs.truncate_payload('(' ~ protected ~ ')', rules['max_bytes']) }}
    {%- endif -%}
{%- endmacro %}
