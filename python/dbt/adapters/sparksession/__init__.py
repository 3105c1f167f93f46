"""dbt adapter plugin: dbt-spark's session method, plus Python models run in that session."""

from dbt.adapters.base import AdapterPlugin

from dbt.adapters.sparksession.connections import SparkSessionCredentials
from dbt.adapters.sparksession.impl import SparkSessionAdapter
from dbt.include import sparksession

Plugin = AdapterPlugin(
    adapter=SparkSessionAdapter,  # type: ignore[arg-type]
    credentials=SparkSessionCredentials,
    include_path=sparksession.PACKAGE_PATH,
    dependencies=["spark"],
)
