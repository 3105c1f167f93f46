{#- The status rule (raw `status` -> changelog `status`), the same as `map_status` in
    sync_logs.canonical.changelog; both are checked against tests/data/status_rules.csv.
    Compared case-insensitively, surrounding spaces ignored: `succeeded` -> succeeded,
    `rejected` -> failed, `NULL` / `DUPLICATE` -> invalid, null or blank -> aborted, any other
    value -> failed (the engine attempted the record and it did not succeed). A null or blank
    status with a null identifier is `NULL` whose text a writer or loader turned into a null:
    invalid. -#}
{% macro changelog_status(raw_status, row_id) -%}
    {%- set normalised = 'lower(trim(' ~ raw_status ~ '))' -%}
    {%- set missing = '(' ~ raw_status ~ ' is null or trim(' ~ raw_status ~ ") = '')" %}
    case
        when {{ missing }} and {{ row_id }} is null then 'invalid'
        when {{ missing }} then 'aborted'
        when {{ normalised }} = 'succeeded' then 'succeeded'
        when {{ normalised }} = 'rejected' then 'failed'
        when {{ normalised }} in ('null', 'duplicate') then 'invalid'
        else 'failed'
    end
{%- endmacro %}
