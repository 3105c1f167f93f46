{#- A message with its values replaced, so that it carries no personal data and messages
    that differ only in values group together. In order: e-mail addresses become `<email>`;
    the apostrophe of English contractions (`doesn't`, `manager's`) is dropped so that it
    does not open a quote; single-quoted text becomes `'<value>'`; a double-quoted JSON
    value (after a colon) `:"<value>"`; other double-quoted text without `:`, `,`, `{` or
    `}` becomes `"<value>"` unless it is a bare word (a JSON key such as `"message"`);
    words that mix letters and digits (ids, UUIDs, `0035e00000AbCdE`) `<id>`; and the
    remaining digit runs `<number>`. -#}
{% macro error_message_template(message) %}
    {%- set rules = [
        ('[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+([.][A-Za-z0-9-]+)+', '<email>'),
        ("n't", 'nt'),
        ("'s ", 's '),
        ("'re ", 're '),
        ("'ll ", 'll '),
        ("'ve ", 've '),
        ("'[^']*'", "'<value>'"),
        (':[ ]*"[^"]*"', ':"<value>"'),
        ('"[^":,{}]*[^A-Za-z_":,{}][^":,{}]*"', '"<value>"'),
        ('[A-Za-z0-9_-]*([A-Za-z_][A-Za-z0-9_-]*[0-9]|[0-9][A-Za-z0-9_-]*[A-Za-z_])[A-Za-z0-9_-]*', '<id>'),
        ('[0-9]+', '<number>'),
    ] -%}
    {%- set expression = namespace(sql=message) -%}
    {%- for pattern, replacement in rules -%}
        {%- set expression.sql = sync_logs.regexp_replace_all(expression.sql, pattern, replacement) -%}
    {%- endfor -%}
    {{ expression.sql }}
{% endmacro %}
