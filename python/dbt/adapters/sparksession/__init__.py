"""dbt adapter plugin: dbt-spark's session method, plus Python models run in that session."""

try:
    from dbt.adapters.base import AdapterPlugin

    from dbt.adapters.sparksession.connections import SparkSessionCredentials
    from dbt.adapters.sparksession.impl import SparkSessionAdapter
except ModuleNotFoundError as exc:  # dbt-spark or PySpark: sync-logs' `session` extra
    if (exc.name or "").startswith("dbt.adapters.sparksession"):
        raise
    from dbt_common.exceptions import DbtRuntimeError  # dbt's, as dbt loads this plugin

    # dbt reports a DbtRuntimeError as an invalid profile, with this message
    raise DbtRuntimeError(
        f"the sparksession adapter needs {exc.name}, which is not installed: install sync-logs "
        "with its `session` extra, e.g. pip install 'sync-logs[session]'"
    ) from exc

from dbt.include import sparksession

Plugin = AdapterPlugin(
    adapter=SparkSessionAdapter,  # type: ignore[arg-type]
    credentials=SparkSessionCredentials,
    include_path=sparksession.PACKAGE_PATH,
    dependencies=["spark"],
)
