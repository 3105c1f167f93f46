{#- Python model epilogue for the session method: dbt-spark's, plus partition_by, a Spark DataFrame
    only, and nothing written for a table model that returns its own table as it stands (the
    response code tells table.sql). -#}
{% macro py_write_table(compiled_code, target_relation) %}
{{ py_model_dataframe(compiled_code) }}
from pyspark.sql.utils import AnalysisException
dbt_unchanged = False
{%- if config.get('materialized') == 'table' %}
try:
    dbt_unchanged = df.sameSemantics(spark.table("{{ this }}"))
except AnalysisException:  # no such table yet
    pass
{%- endif %}
{%- set partition_by = config.get('partition_by') %}
{%- if partition_by is string %}{% set partition_by = [partition_by] %}{% endif %}
if dbt_unchanged:
    dbt_submission_code = "UNCHANGED"
else:
    writer = df.write.mode("overwrite").format("{{ config.get('file_format', 'parquet') }}")
    {%- if partition_by %}
    writer = writer.partitionBy({{ partition_by | map('tojson') | join(', ') }})
    {%- endif %}
    writer.saveAsTable("{{ target_relation }}")
{% endmacro %}
