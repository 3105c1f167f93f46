{#- The package's on-run-end hook: when var `sync_logs_prune_on_run` is true, runs
    `prune_sync_logs` after a `dbt run` or `dbt build` in which no node errored (a package's
    on-run-end hook runs in the installing project's invocations too, hence the var, off by
    default). The retention vars are checked when dbt parses the hook, so that a bad one fails
    before the build, not after it. Renders no SQL. -#}
{% macro prune_sync_logs_on_run_end() %}
    {%- if var('sync_logs_prune_on_run') -%}
        {%- do sync_logs.retention_settings() -%}
    {%- endif -%}
    {%- if execute and var('sync_logs_prune_on_run') and flags.WHICH in ['run', 'build'] -%}
        {%- set errored = results | selectattr('status', 'equalto', 'error') | list -%}
        {%- if errored -%}
            {{ log("sync_logs retention: not pruning, " ~ errored | length ~ " nodes errored in this run", info=true) }}
        {%- else -%}
            {%- do sync_logs.prune_sync_logs() -%}
        {%- endif -%}
    {%- endif -%}
    {{ return('') }}
{% endmacro %}
