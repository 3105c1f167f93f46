{#- The snapshot's op_type of a row from its latest attempt, the same rule as
    `snapshot_op_type` in sync_logs.canonical.snapshot: `unchanged` unless `in_latest_run` (the
    attempt is in the sync's latest run); there, the attempt's op_type, except that a removal
    that did not succeed is `changed` (the row stays in the destination; the status says the
    removal failed). -#}
{% macro snapshot_op_type(op_type, status, in_latest_run) -%}
    case
        when not coalesce({{ in_latest_run }}, false) then 'unchanged'
        when {{ op_type }} = 'removed' and {{ sync_logs.is_distinct_from(status, "'succeeded'") }} then 'changed'
        else {{ op_type }}
    end
{%- endmacro %}
