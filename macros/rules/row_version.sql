{#- A row's version in a run is its last valid attempt there: the attempts that can be one
    (an identifier, and a status other than `invalid`: invalid attempts are never applied) and
    the order-by list that puts the run's version first among them. For relations with the
    columns `row_id`, `status`, `attempted_at` and `log_id`; `int_sync_logs__row_runs`,
    `sync_logs__field_diffs` and retention use them. -#}
{% macro row_version_candidate() -%}
    {{ return("row_id is not null and status <> 'invalid'") }}
{%- endmacro %}

{% macro row_version_first() -%}
    {{ return('attempted_at desc, log_id desc') }}
{%- endmacro %}
