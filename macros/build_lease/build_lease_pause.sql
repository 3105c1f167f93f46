{#- Two seconds between attempts at the build lease (Jinja cannot sleep): on Spark the
    warehouse sleeps; on Databricks, whose shared clusters refuse `java_method`, cheap queries
    run until the time has passed. -#}
{% macro build_lease_pause() %}
    {%- if target.type == 'databricks' -%}
        {%- set started = modules.datetime.datetime.now() -%}
        {%- for attempt in range(10000) -%}
            {%- if (modules.datetime.datetime.now() - started).total_seconds() >= 2 -%}
                {%- break -%}
            {%- endif -%}
            {%- do run_query('select 1') -%}
        {%- endfor -%}
    {%- else -%}
        {%- do run_query("select java_method('java.lang.Thread', 'sleep', cast(2000 as bigint))") -%}
    {%- endif -%}
{% endmacro %}
