{#- The text before the JSON of `changed_runs` in the comment `in_changed_syncs` renders. -#}
{% macro changed_runs_marker() %}
    {{ return('sync_logs changed_runs: ') }}
{% endmacro %}
