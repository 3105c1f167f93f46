{#- The one place that reads the retention vars: a dict of `retention_days` (none keeps
    everything), `inactive_syncs` (sync ids), `inactive_syncs_relation` (a seed, model or
    `schema.table` with a `sync_id` column), `inactive_after_days` (none: never by age) and
    `as_of` (the argument, else var `sync_logs_retention_as_of`, else none: now). A day count
    that is not a whole number >= 0 raises: cast with `| int`, text would silently become 0. -#}
{% macro retention_settings(as_of=none) %}
    {%- set inactive = var('sync_logs_inactive_syncs') -%}
    {%- if inactive is string or inactive is number -%}
        {%- set inactive = [inactive] -%}
    {%- endif -%}
    {%- set days = {} -%}
    {%- for name, value, when_null in [
            ('sync_logs_retention_days', var('sync_logs_retention_days'), 'null to keep all history'),
            ('sync_logs_inactive_after_days', var('sync_logs_inactive_after_days'),
                'null to never treat a sync as inactive by age')] -%}
        {%- set whole = value is string and value | trim | length > 0 and (value | trim).isdigit() -%}
        {%- set whole = whole or (value is number and value is not sameas true
            and value is not sameas false and value == value | int and value >= 0) -%}
        {%- if value is not none and not whole -%}
            {{ exceptions.raise_compiler_error(
                "var " ~ name ~ " is " ~ tojson(value) ~ ": set it to a whole number of days "
                ~ ">= 0, or " ~ when_null) }}
        {%- endif -%}
        {%- do days.update({name: none if value is none else (value | trim if value is string else value) | int}) -%}
    {%- endfor -%}
    {{ return({
        'retention_days': days['sync_logs_retention_days'],
        'inactive_syncs': inactive | map('int') | list,
        'inactive_syncs_relation': var('sync_logs_inactive_syncs_relation'),
        'inactive_after_days': days['sync_logs_inactive_after_days'],
        'as_of': as_of if as_of is not none else var('sync_logs_retention_as_of'),
    }) }}
{% endmacro %}
