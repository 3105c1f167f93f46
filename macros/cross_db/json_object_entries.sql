{#- Key iteration over a JSON object held as text: renders
        select <columns>, field_name, field_value from <relation> ...
    with one output row per top-level key of `json_column` (rows whose value is not a JSON
    object yield none). `field_value` is the value as text: strings unquoted, numbers and
    booleans as written, JSON null as SQL null, arrays and objects as the warehouse's JSON
    text. `columns` are carried through unchanged (names of columns of `relation`). -#}
{% macro json_object_entries(relation, json_column, columns) %}
    {{ return(adapter.dispatch('json_object_entries', 'sync_logs')(relation, json_column, columns)) }}
{% endmacro %}

{% macro default__json_object_entries(relation, json_column, columns) -%}
    {{ exceptions.raise_compiler_error(
        "sync_logs: iterating JSON keys is not implemented for " ~ target.type
        ~ "; set var sync_logs_field_diffs_enabled to false to skip the field-level diff models.") }}
{%- endmacro %}

{% macro postgres__json_object_entries(relation, json_column, columns) -%}
    select
        {% for column in columns %}sync_logs_entries_input.{{ column }},{% endfor %}
        sync_logs_entries.key as field_name,
        sync_logs_entries.value as field_value
    from {{ relation }} as sync_logs_entries_input
    cross join lateral jsonb_each_text(
        case
            when jsonb_typeof(cast(sync_logs_entries_input.{{ json_column }} as jsonb)) = 'object'
                then cast(sync_logs_entries_input.{{ json_column }} as jsonb)
            else cast('{}' as jsonb)
        end
    ) as sync_logs_entries
{%- endmacro %}

{% macro duckdb__json_object_entries(relation, json_column, columns) -%}
    select
        {% for column in columns %}sync_logs_entries_input.{{ column }},{% endfor %}
        sync_logs_entries.key as field_name,
        json_extract_string(sync_logs_entries.value, '$') as field_value
    from {{ relation }} as sync_logs_entries_input
    cross join json_each(
        case
            when json_type(cast(sync_logs_entries_input.{{ json_column }} as json)) = 'OBJECT'
                then cast(sync_logs_entries_input.{{ json_column }} as json)
            else cast('{}' as json)
        end
    ) as sync_logs_entries
{%- endmacro %}

{#- from_json to map<string,string> keeps nested values as their JSON text. -#}
{% macro spark__json_object_entries(relation, json_column, columns) -%}
    select
        {% for column in columns %}sync_logs_entries_input.{{ column }},{% endfor %}
        sync_logs_entries.field_name,
        sync_logs_entries.field_value
    from {{ relation }} as sync_logs_entries_input
    lateral view explode(
        from_json(sync_logs_entries_input.{{ json_column }}, 'map<string,string>')
    ) sync_logs_entries as field_name, field_value
{%- endmacro %}

{% macro snowflake__json_object_entries(relation, json_column, columns) -%}
    select
        {% for column in columns %}sync_logs_entries_input.{{ column }},{% endfor %}
        sync_logs_entries.key as field_name,
        case
            when is_null_value(sync_logs_entries.value) then null
            else to_varchar(sync_logs_entries.value)
        end as field_value
    from {{ relation }} as sync_logs_entries_input,
        lateral flatten(input => try_parse_json(sync_logs_entries_input.{{ json_column }})) as sync_logs_entries
    where is_object(try_parse_json(sync_logs_entries_input.{{ json_column }}))
{%- endmacro %}

{% macro bigquery__json_object_entries(relation, json_column, columns) -%}
    select
        {% for column in columns %}sync_logs_entries_input.{{ column }},{% endfor %}
        field_name,
        case
            when json_type(sync_logs_entries_input.sync_logs_object[field_name]) = 'null' then null
            when json_type(sync_logs_entries_input.sync_logs_object[field_name]) in ('object', 'array')
                then to_json_string(sync_logs_entries_input.sync_logs_object[field_name])
            else json_value(sync_logs_entries_input.sync_logs_object[field_name])
        end as field_value
    from (
        select *, safe.parse_json({{ json_column }}) as sync_logs_object
        from {{ relation }}
    ) as sync_logs_entries_input,
        unnest(json_keys(sync_logs_entries_input.sync_logs_object, 1)) as field_name
    where json_type(sync_logs_entries_input.sync_logs_object) = 'object'
{%- endmacro %}

{#- Redshift: object unpivoting of a SUPER value parsed from the text. -#}
{% macro redshift__json_object_entries(relation, json_column, columns) -%}
    select
        {% for column in columns %}sync_logs_entries_input.{{ column }},{% endfor %}
        field_name,
        case
            when json_typeof(field_super) = 'null' then null
            when is_varchar(field_super) then cast(field_super as varchar(65535))
            else json_serialize(field_super)
        end as field_value
    from (
        select *, json_parse({{ json_column }}) as sync_logs_object
        from {{ relation }}
        where can_json_parse({{ json_column }})
    ) as sync_logs_entries_input,
        unpivot sync_logs_entries_input.sync_logs_object as field_super at field_name
    where is_object(sync_logs_entries_input.sync_logs_object)
{%- endmacro %}
