{#- Test only: when the environment variable SYNC_LOGS_TEST_KILL_AT names `point`, the dbt
    process writes "sync_logs test kill point: <point>" to stderr and kills itself with SIGKILL
    (the crash-safety tests, tests/dbt/test_crash_and_lock.py). Unset, it does nothing. -#}
{% macro test_kill_point(point) %}
    {%- if execute and env_var('SYNC_LOGS_TEST_KILL_AT', '') == point -%}
        {%- if target.type != 'sparksession' -%}
            {{ exceptions.raise_compiler_error(
                "SYNC_LOGS_TEST_KILL_AT works on the sparksession target only; unset it.") }}
        {%- endif -%}
        {%- do adapter.kill_at_test_point(point) -%}
    {%- endif -%}
    {{ return('') }}
{% endmacro %}
