{#- Python model epilogue for an incremental run (see materializations/incremental.sql): the
    new rows as a temporary view of dbt's session, or nothing when Spark already knows they are
    none. The submission's response code tells the materialization which. -#}
{% macro py_create_temp_view(compiled_code, tmp_relation) %}
{{ py_model_dataframe(compiled_code) }}
# An empty local relation after optimisation: Spark needs to run nothing to know there are no rows.
# A Spark Connect DataFrame has no JVM plan at hand (no `_jdf`): its view is always created.
jdf = getattr(df, "_jdf", None)
optimized = jdf.queryExecution().optimizedPlan() if jdf is not None else None
if optimized is not None and optimized.getClass().getSimpleName() == "LocalRelation" and optimized.data().isEmpty():
    dbt_submission_code = "EMPTY"
else:
    df.createOrReplaceTempView("{{ tmp_relation.identifier }}")
{% endmacro %}
