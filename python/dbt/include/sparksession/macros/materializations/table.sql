{#-
  dbt-spark's table materialization drops the old table before building the new one.
  This one builds into a staging table first, so a failing model leaves the old table as it was,
  and a Python model that returns its own table unchanged writes nothing.
-#}
{% materialization table, adapter='sparksession', supported_languages=['sql', 'python'] %}
  {%- set language = model['language'] -%}
  {%- set identifier = model['alias'] -%}
  {%- set grant_config = config.get('grants') -%}
  {%- set old_relation = adapter.get_relation(database=database, schema=schema, identifier=identifier) -%}
  {%- set target_relation = api.Relation.create(identifier=identifier, schema=schema, database=database, type='table') -%}
  {%- set staging_relation = api.Relation.create(identifier=identifier ~ '__dbt_new', schema=schema, database=database, type='table') -%}

  {{ run_hooks(pre_hooks) }}

  {% call statement('drop_stale_staging') -%}
    drop table if exists {{ staging_relation }}
  {%- endcall %}

  {%- call statement('main', language=language) -%}
    {{ create_table_as(False, staging_relation, compiled_code, language) }}
  {%- endcall -%}

  {#-- a Python model that returned its own table as it stands wrote nothing (py_write_table) --#}
  {%- if load_result('main').response.code != 'UNCHANGED' -%}
    {% if old_relation is not none %}
      {% do adapter.drop_relation(old_relation) %}
    {% endif %}
    {% do adapter.rename_relation(staging_relation, target_relation) %}
  {%- endif %}

  {% set should_revoke = should_revoke(old_relation, full_refresh_mode=True) %}
  {% do apply_grants(target_relation, grant_config, should_revoke) %}
  {% do persist_docs(target_relation, model) %}
  {{ run_hooks(post_hooks) }}

  {{ return({'relations': [target_relation]}) }}
{% endmaterialization %}
