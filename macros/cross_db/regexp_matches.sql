{#- True when `pattern` (a regular expression in the subset common to POSIX ERE, RE2 and
    Java: alternation, classes, quantifiers; no back-references or \b) matches anywhere in
    `value`, ignoring case. Both arguments are SQL expressions. -#}
{% macro regexp_matches(value, pattern) %}
    {{ return(adapter.dispatch('regexp_matches', 'sync_logs')(value, pattern)) }}
{% endmacro %}

{% macro default__regexp_matches(value, pattern) -%}
    ({{ value }} ~* {{ pattern }})
{%- endmacro %}

{% macro redshift__regexp_matches(value, pattern) -%}
    (regexp_instr({{ value }}, {{ pattern }}, 1, 1, 0, 'i') > 0)
{%- endmacro %}

{% macro snowflake__regexp_matches(value, pattern) -%}
    (regexp_instr({{ value }}, {{ pattern }}, 1, 1, 0, 'i') > 0)
{%- endmacro %}

{% macro duckdb__regexp_matches(value, pattern) -%}
    regexp_matches({{ value }}, {{ pattern }}, 'i')
{%- endmacro %}

{% macro spark__regexp_matches(value, pattern) -%}
    ({{ value }} rlike concat('(?i)', {{ pattern }}))
{%- endmacro %}

{% macro bigquery__regexp_matches(value, pattern) -%}
    regexp_contains({{ value }}, concat('(?i)', {{ pattern }}))
{%- endmacro %}
