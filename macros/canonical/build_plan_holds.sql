{#- Whether the build plan (`int_sync_logs__build_plan`, alias `plan`) holds a run meeting the
    SQL `condition`: one query of that small table, so that a post-hook whose work concerns such
    runs alone runs nothing more in a build without them (an idle one, or new runs only). -#}
{% macro build_plan_holds(condition) %}
    {%- set query -%}
        select 1 as held
        from {{ ref('int_sync_logs__build_plan') }} as plan
        where {{ condition }}
        limit 1
    {%- endset -%}
    {{ return(run_query(query).rows | length > 0) }}
{% endmacro %}
