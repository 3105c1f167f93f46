{#- Removes the rows of whole partitions of `relation`: `keys` is a list of dicts, each naming
    one partition by its partition column values (numbers), e.g. [{'sync_id': 1, 'sync_run_id': 7}].
    Parquet tables on Spark drop the partitions; delta tables and other warehouses delete. -#}
{% macro delete_partitions(relation, keys) %}
    {%- if keys | length > 0 -%}
        {% do adapter.dispatch('delete_partitions', 'sync_logs')(relation, keys) %}
        {% do sync_logs.test_kill_point('partitions_cleared') %}
    {%- endif -%}
{% endmacro %}

{% macro spark__delete_partitions(relation, keys) %}
    {%- if config.get('file_format', 'parquet') == 'delta' -%}
        {% do sync_logs.default__delete_partitions(relation, keys) %}
    {%- else -%}
        {%- for batch in keys | batch(200) %}
            {% call statement('delete_partitions') %}
                alter table {{ relation }} drop if exists
                {%- for key in batch %}
                    partition ({% for column, value in key.items() %}{{ column }} = {{ value | int }}{{ ", " if not loop.last }}{% endfor %}){{ "," if not loop.last }}
                {%- endfor %}
            {% endcall %}
        {%- endfor %}
    {%- endif -%}
{% endmacro %}

{% macro default__delete_partitions(relation, keys) %}
    {%- for batch in keys | batch(200) %}
        {% call statement('delete_partitions') %}
            delete from {{ relation }}
            where
            {%- for key in batch %}
                ({% for column, value in key.items() %}{{ column }} = {{ value | int }}{{ " and " if not loop.last }}{% endfor %}){{ " or" if not loop.last }}
            {%- endfor %}
        {% endcall %}
    {%- endfor %}
{% endmacro %}
