{#- The counters of a run from its changelog rows (aggregates over `op_type` and `status`, for
    a `group by` of the run), the same rule as `run_counters` in sync_logs.canonical.runs
    (tests/data/run_counters.csv holds both to one table of cases): planned = the rows of the
    op_type that are not `invalid`; attempted = succeeded + failed; `num_invalid` of any
    op_type. -#}
{% macro run_counters() -%}
    {%- set statuses = {
        'planned': "status <> 'invalid'",
        'attempted': "status in ('succeeded', 'failed')",
        'succeeded': "status = 'succeeded'",
        'failed': "status = 'failed'",
    } -%}
    {%- for kind, condition in statuses.items() %}
        {%- for short, op_type in [('add', 'added'), ('change', 'changed'), ('remove', 'removed')] %}
    count(case when op_type = '{{ op_type }}' and {{ condition }} then 1 end) as num_{{ kind }}_{{ short }},
        {%- endfor %}
    {%- endfor %}
    count(case when status = 'invalid' then 1 end) as num_invalid
{%- endmacro %}
