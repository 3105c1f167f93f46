{#- The one place that reads the retention vars: a dict of `retention_days` (none keeps
    everything), `inactive_syncs` (sync ids), `inactive_syncs_relation` (a seed, model or
    `schema.table` with a `sync_id` column), `inactive_after_days` (none: never by age) and
    `as_of` (the argument, else var `sync_logs_retention_as_of`, else none: now). -#}
{% macro retention_settings(as_of=none) %}
    {%- set days = var('sync_logs_retention_days', 7) -%}
    {%- set after = var('sync_logs_inactive_after_days', 30) -%}
    {%- set inactive = var('sync_logs_inactive_syncs', []) -%}
    {%- if inactive is string or inactive is number -%}
        {%- set inactive = [inactive] -%}
    {%- endif -%}
    {%- if days is not none and (days | int) < 0 -%}
        {{ exceptions.raise_compiler_error(
            "var sync_logs_retention_days is " ~ days ~ "; give a number of days >= 0, or null to keep all history") }}
    {%- endif -%}
    {{ return({
        'retention_days': none if days is none else days | int,
        'inactive_syncs': inactive | map('int') | list,
        'inactive_syncs_relation': var('sync_logs_inactive_syncs_relation', none),
        'inactive_after_days': none if after is none else after | int,
        'as_of': as_of if as_of is not none else var('sync_logs_retention_as_of', none),
    }) }}
{% endmacro %}
