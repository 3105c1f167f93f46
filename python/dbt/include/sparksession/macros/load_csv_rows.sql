{#- Seed rows for the session method. dbt-spark's session cursor formats bindings with
    Python's %, which turns a null into the text 'None' and leaves quotes unescaped: a seed's
    empty cells (the error taxonomy's class-only patterns) would load as 'None'. Rows are
    inserted as escaped, typed literals instead, nulls as nulls. -#}
{% macro sparksession__load_csv_rows(model, agate_table) %}
    {%- set column_override = model['config'].get('column_types', {}) -%}
    {%- set statements = [] -%}
    {%- for chunk in agate_table.rows | batch(get_batch_size()) -%}
        {%- set sql -%}
            insert into {{ this.render() }} values
            {% for row in chunk -%}
                ({%- for col_name in agate_table.column_names -%}
                    {%- set type = column_override.get(col_name, adapter.convert_type(agate_table, loop.index0)) -%}
                    {%- set value = row[loop.index0] -%}
                    {%- if value is none -%}
                        cast(null as {{ type }})
                    {%- else -%}
                        cast('{{ value | string | replace("\\", "\\\\") | replace("'", "\\'") }}' as {{ type }})
                    {%- endif -%}
                    {%- if not loop.last %}, {% endif -%}
                {%- endfor -%})
                {%- if not loop.last %},{% endif %}
            {% endfor %}
        {%- endset -%}
        {%- do adapter.add_query(sql, abridge_sql_log=True) -%}
        {%- if loop.first -%}{%- do statements.append(sql) -%}{%- endif -%}
    {%- endfor -%}
    {{ return(statements[0] if statements else '') }}
{% endmacro %}
