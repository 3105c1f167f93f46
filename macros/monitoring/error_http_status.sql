{#- The HTTP status (400 to 599) a message carries, as an integer, or null: a three-digit
    code at the start of the message (after punctuation: `429 Too Many Requests`,
    `[503] ...`) or right after `status`, `code`, `http` or `error` (`status code 502`,
    `"status_code": 404`, `HTTP 500`). Other numbers (ids, counts) are not taken. -#}
{% macro error_http_status(message) %}
    {%- set value = dbt.concat(['lower(' ~ message ~ ')', "' '"]) -%}
    {%- set patterns = [
        '^[^0-9a-z]*([45][0-9][0-9])[^0-9]',
        'status[^0-9a-z]{0,4}([45][0-9][0-9])[^0-9]',
        'code[^0-9a-z]{0,4}([45][0-9][0-9])[^0-9]',
        'http[^0-9a-z]{0,4}([45][0-9][0-9])[^0-9]',
        'error[^0-9a-z]{0,4}([45][0-9][0-9])[^0-9]',
    ] -%}
    cast(coalesce(
        {%- for pattern in patterns %}
        {{ sync_logs.regexp_extract(value, "'" ~ pattern ~ "'") }}{{ ',' if not loop.last }}
        {%- endfor %}
    ) as {{ dbt.type_int() }})
{% endmacro %}
