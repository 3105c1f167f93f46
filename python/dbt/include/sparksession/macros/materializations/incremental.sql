{#-
  dbt-spark's incremental materialization, with one change for Python models. dbt-spark writes
  a Python model's new rows to a temporary table, then inserts them into the target from there:
  every row is written twice. The session method runs the model in dbt's own SparkSession, so
  here the new rows are a temporary view of that session, and the insert computes and writes
  them once. When Spark knows the new rows are none before running anything (the model returned
  an empty local relation, as `limit(0)` gives), nothing is run or written at all.

  The view reads the tables the model read, which may be the target itself: an insert that
  replaces whole partitions (insert_overwrite with partition_by) or appends may read its target;
  any other strategy writes a temporary table as dbt-spark does. A SQL model's temporary view
  is dropped after the insert (dbt-spark leaves it: its session ends with the run; this one
  serves the next invocations of the process too).
-#}
{% materialization incremental, adapter='sparksession', supported_languages=['sql', 'python'] -%}
  {#-- Validate early so we don't run SQL if the file_format + strategy combo is invalid --#}
  {%- set raw_file_format = config.get('file_format', default='parquet') -%}
  {%- set raw_strategy = config.get('incremental_strategy') or 'append' -%}
  {%- set grant_config = config.get('grants') -%}

  {%- set file_format = dbt_spark_validate_get_file_format(raw_file_format) -%}
  {%- set strategy = dbt_spark_validate_get_incremental_strategy(raw_strategy, file_format) -%}

  {#-- Set vars --#}

  {%- set unique_key = config.get('unique_key', none) -%}
  {%- set partition_by = config.get('partition_by', none) -%}
  {%- set language = model['language'] -%}
  {%- set on_schema_change = incremental_validate_on_schema_change(config.get('on_schema_change'), default='ignore') -%}
  {%- set incremental_predicates = config.get('predicates', none) or config.get('incremental_predicates', none) -%}
  {%- set target_relation = this -%}
  {%- set existing_relation = load_relation(this) -%}
  {% set tmp_relation = this.incorporate(path = {"identifier": this.identifier ~ '__dbt_tmp'}) -%}
  {%- set python_view = language == 'python' and (strategy == 'append' or (strategy == 'insert_overwrite' and partition_by)) -%}

  {#-- for SQL models and Python models' views: a temporary view, without database and schema --#}
  {%- if language == 'sql' or python_view -%}
    {%- set tmp_relation = tmp_relation.include(database=false, schema=false) -%}
  {%- endif -%}

  {#-- Set Overwrite Mode --#}
  {%- if strategy in ['insert_overwrite', 'microbatch'] and partition_by -%}
    {%- call statement() -%}
      set spark.sql.sources.partitionOverwriteMode = DYNAMIC
    {%- endcall -%}
  {%- endif -%}

  {#-- Run pre-hooks --#}
  {{ run_hooks(pre_hooks) }}

  {#-- Incremental run logic --#}
  {%- if existing_relation is none -%}
    {#-- Relation must be created --#}
    {%- call statement('main', language=language) -%}
      {{ create_table_as(False, target_relation, compiled_code, language) }}
    {%- endcall -%}
    {% do persist_constraints(target_relation, model) %}
  {%- elif existing_relation.is_view or should_full_refresh() -%}
    {#-- Relation must be dropped & recreated --#}
    {% set is_delta = (file_format == 'delta' and existing_relation.is_delta) %}
    {% if not is_delta %} {#-- If Delta, we will `create or replace` below, so no need to drop --#}
      {% do adapter.drop_relation(existing_relation) %}
    {% endif %}
    {%- call statement('main', language=language) -%}
      {{ create_table_as(False, target_relation, compiled_code, language) }}
    {%- endcall -%}
    {% do persist_constraints(target_relation, model) %}
  {%- elif python_view -%}
    {%- call statement('create_tmp_relation', language=language) -%}
      {{ py_create_temp_view(compiled_code, tmp_relation) }}
    {%- endcall -%}
    {%- set new_rows = load_result('create_tmp_relation').response -%}
    {%- if new_rows.code == 'EMPTY' -%}
      {% do store_result('main', response=new_rows) %}
    {%- else -%}
      {%- do process_schema_changes(on_schema_change, tmp_relation, existing_relation) -%}
      {%- call statement('main') -%}
        {{ dbt_spark_get_incremental_sql(strategy, tmp_relation, target_relation, existing_relation, unique_key, incremental_predicates) }}
      {%- endcall -%}
      {% call statement('drop_relation') -%}
        drop view if exists {{ tmp_relation }}
      {%- endcall %}
    {%- endif -%}
  {%- else -%}
    {#-- Relation must be merged --#}
    {%- call statement('create_tmp_relation', language=language) -%}
      {{ create_table_as(True, tmp_relation, compiled_code, language) }}
    {%- endcall -%}
    {%- do process_schema_changes(on_schema_change, tmp_relation, existing_relation) -%}
    {%- call statement('main') -%}
      {{ dbt_spark_get_incremental_sql(strategy, tmp_relation, target_relation, existing_relation, unique_key, incremental_predicates) }}
    {%- endcall -%}
    {#-- dbt-spark leaves a SQL model's temporary view in the session; this one lives on --#}
    {% call statement('drop_relation') -%}
      drop {{ 'table' if language == 'python' else 'view' }} if exists {{ tmp_relation }}
    {%- endcall %}
  {%- endif -%}

  {% set should_revoke = should_revoke(existing_relation, full_refresh_mode) %}
  {% do apply_grants(target_relation, grant_config, should_revoke) %}

  {% do persist_docs(target_relation, model) %}

  {{ run_hooks(post_hooks) }}

  {{ return({'relations': [target_relation]}) }}

{%- endmaterialization %}
