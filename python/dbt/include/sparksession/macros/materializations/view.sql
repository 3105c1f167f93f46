{#-
  dbt's view materialization, and with `keep_unchanged_view: true` a view whose definition has
  not changed is kept instead of created again. Each create is a metastore write, and a build
  runs the statements of its views beside its other models, on the same metastore and cores.

  The definition is the `create view` statement this build would run (relation, columns,
  comment, query); its MD5 is stored with the view (the `dbt_view_ddl_md5` table property) and
  compared before the next create. A view is created again when its statement changed, when it
  has no stored MD5, or with `--full-refresh`. What a kept view shows follows its tables, as a
  created one's does; only the columns of a `select *` are fixed when it is created, so set this
  config on views that name their columns.
-#}
{% materialization view, adapter='sparksession' -%}
  {%- if not config.get('keep_unchanged_view', false) -%}
    {{ return(create_or_replace_view()) }}
  {%- endif -%}
  {%- set identifier = model['alias'] -%}
  {%- set old_relation = adapter.get_relation(database=database, schema=schema, identifier=identifier) -%}
  {%- set target_relation = api.Relation.create(identifier=identifier, schema=schema, database=database, type='view') -%}
  {%- set definition_md5 = local_md5(get_create_view_as_sql(target_relation, sql)) -%}
  {%- set kept = old_relation is not none and old_relation.is_view and not should_full_refresh()
      and sparksession__view_definition_md5(old_relation) == definition_md5 -%}
  {%- if not kept -%}
    {%- set result = create_or_replace_view() -%}
    {% call statement('store_view_definition_md5') -%}
      alter view {{ target_relation }} set tblproperties ('dbt_view_ddl_md5' = '{{ definition_md5 }}')
    {%- endcall %}
    {{ return(result) }}
  {%- endif -%}

  {{ run_hooks(pre_hooks) }}
  {% call noop_statement('main', 'OK: unchanged, kept', 'KEPT') %}
    -- {{ target_relation }}: unchanged definition, kept (keep_unchanged_view)
  {% endcall %}
  {% do apply_grants(target_relation, config.get('grants'), should_revoke=false) %}
  {{ run_hooks(post_hooks) }}
  {{ return({'relations': [target_relation]}) }}
{%- endmaterialization %}

{#- The MD5 of the definition `relation` (a view) was created with, or none. -#}
{% macro sparksession__view_definition_md5(relation) %}
  {%- for row in run_query('show tblproperties ' ~ relation) -%}
    {%- if row['key'] == 'dbt_view_ddl_md5' -%}
      {{ return(row['value']) }}
    {%- endif -%}
  {%- endfor -%}
  {{ return(none) }}
{% endmacro %}
