{#- `column` when `relation` has it, else a typed null: for vendor columns that exist only
    sometimes (Hightouch creates `split_group` only for syncs with audience splits, and has no
    `fields` on Redshift). Columns are looked up at run time; parsing assumes the column. -#}
{% macro column_or_null(relation, column, type) %}
    {%- if execute -%}
        {%- set names = adapter.get_columns_in_relation(relation) | map(attribute='name') | map('lower') | list -%}
        {%- if column | lower not in names -%}
            {{ return('cast(null as ' ~ type ~ ')') }}
        {%- endif -%}
    {%- endif -%}
    {{ return(column) }}
{% endmacro %}
