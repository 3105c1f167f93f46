{#- The top-level fields that differ between two JSON objects held as text in each row of
    `relation`: renders
        select <columns>, field_name, change_type, old_value, new_value from <relation> ...
    with one output row per field of `new_column` or `old_column` that is only in the new
    object (`appeared`), only in the old one (`disappeared`), or in both with values that
    differ null-safely (`changed`). Values as `json_object_entries` gives them; a value that
    is not a JSON object counts as an object without fields. `keys` identify a row of
    `relation` (the default's join keys; Spark compares within each row and ignores them);
    `columns` (keys included) are carried through unchanged. -#}
{% macro json_object_diff(relation, new_column, old_column, keys, columns) %}
    {{ return(adapter.dispatch('json_object_diff', 'sync_logs')(relation, new_column, old_column, keys, columns)) }}
{% endmacro %}

{#- Both objects' entries, full outer joined on the row's keys and the field name. -#}
{% macro default__json_object_diff(relation, new_column, old_column, keys, columns) -%}
    with sync_logs_new_entries as (
        {{ sync_logs.json_object_entries(relation, new_column, columns) | indent(8) }}
    ),

    sync_logs_old_entries as (
        {{ sync_logs.json_object_entries(relation, old_column, columns) | indent(8) }}
    )

    select
        {%- for column in columns %}
        coalesce(sync_logs_new_entries.{{ column }}, sync_logs_old_entries.{{ column }}) as {{ column }},
        {%- endfor %}
        coalesce(sync_logs_new_entries.field_name, sync_logs_old_entries.field_name) as field_name,
        case
            when sync_logs_old_entries.field_name is null then 'appeared'
            when sync_logs_new_entries.field_name is null then 'disappeared'
            else 'changed'
        end as change_type,
        sync_logs_old_entries.field_value as old_value,
        sync_logs_new_entries.field_value as new_value
    from sync_logs_new_entries
    full outer join sync_logs_old_entries
        on {% for key in keys %}sync_logs_new_entries.{{ key }} = sync_logs_old_entries.{{ key }}
        and {% endfor %}sync_logs_new_entries.field_name = sync_logs_old_entries.field_name
    where sync_logs_old_entries.field_name is null
        or sync_logs_new_entries.field_name is null
        or {{ sync_logs.is_distinct_from('sync_logs_new_entries.field_value', 'sync_logs_old_entries.field_value') }}
{%- endmacro %}

{#- Each row's two objects as maps, compared over the union of their field names: no join, so
    no shuffle of every field of every version (the default's full outer join). Each name's
    position among each object's names (0 where it is missing) tells which side has it, and the
    values are read at those positions, not searched for again for each test and value. Where
    both objects have the same names in the same order (most versions of a row), a name's
    position is its index in either: no union and no search. -#}
{% macro spark__json_object_diff(relation, new_column, old_column, keys, columns) -%}
    {%- set no_fields = "cast(map() as map<string,string>)" -%}
    {%- set carried = columns | join(', ') -%}
    select
        {{ carried }},
        field_name,
        case
            when sync_logs_old_position = 0 then 'appeared'
            when sync_logs_new_position = 0 then 'disappeared'
            else 'changed'
        end as change_type,
        case when sync_logs_old_position > 0 then element_at(sync_logs_old_values, sync_logs_old_position) end as old_value,
        case when sync_logs_new_position > 0 then element_at(sync_logs_new_values, sync_logs_new_position) end as new_value
    from (
        select
            {{ carried }},
            sync_logs_diff.field_name,
            sync_logs_new_values,
            sync_logs_old_values,
            case
                when sync_logs_same_names then sync_logs_diff.field_index + 1
                else cast(array_position(sync_logs_new_names, sync_logs_diff.field_name) as int)
            end as sync_logs_new_position,
            case
                when sync_logs_same_names then sync_logs_diff.field_index + 1
                else cast(array_position(sync_logs_old_names, sync_logs_diff.field_name) as int)
            end as sync_logs_old_position
        from (
            select
                {{ carried }},
                map_keys(sync_logs_new_map) as sync_logs_new_names,
                map_values(sync_logs_new_map) as sync_logs_new_values,
                map_keys(sync_logs_old_map) as sync_logs_old_names,
                map_values(sync_logs_old_map) as sync_logs_old_values,
                map_keys(sync_logs_new_map) = map_keys(sync_logs_old_map) as sync_logs_same_names
            from (
                select
                    {{ carried }},
                    coalesce(from_json({{ new_column }}, 'map<string,string>'), {{ no_fields }}) as sync_logs_new_map,
                    coalesce(from_json({{ old_column }}, 'map<string,string>'), {{ no_fields }}) as sync_logs_old_map
                from {{ relation }}
            ) as sync_logs_parsed
        ) as sync_logs_named
        lateral view posexplode(
            if(sync_logs_same_names, sync_logs_new_names, array_union(sync_logs_new_names, sync_logs_old_names))
        ) sync_logs_diff as field_index, field_name
    ) as sync_logs_positioned
    where case
        when sync_logs_old_position = 0 or sync_logs_new_position = 0 then true
        else not (element_at(sync_logs_new_values, sync_logs_new_position) <=> element_at(sync_logs_old_values, sync_logs_old_position))
    end
{%- endmacro %}
