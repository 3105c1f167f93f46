{#- The relation `identifier` in `schema` (default: the target's) of `database` (default: the
    target's, where the target has one). Spark targets have none (there, database and schema
    are one), so `api.Relation.create(database=target.database, ...)` fails on them: name a
    table the package or its CLI creates outside the models (the notify state) with this. -#}
{% macro relation_in_schema(identifier, schema=none, database=none) %}
    {{ return(api.Relation.create(
        database=database or target.get('database'),
        schema=schema or target.schema,
        identifier=identifier)) }}
{% endmacro %}
