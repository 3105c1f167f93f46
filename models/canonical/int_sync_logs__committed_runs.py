"""The runs whose load is committed: the key, position and `manifest_version` of `sync_runs`.

`sync_runs` is the last canonical table a build writes, so a run there with a version is a
committed load of that version. It is read by name (same catalog and schema, identifier from the
`committed_runs_identifier` config) rather than through `ref`, which would be a cycle. Empty on
the first build.
"""

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

COMMITTED_SCHEMA = (
    "sync_id bigint, sync_run_id bigint, sync_run_started_at timestamp, manifest_version bigint"
)


def sibling_relation(this_name: str, identifier: str) -> str:
    """The relation `identifier` in the same catalog/schema as `this_name`."""
    prefix, _, last = this_name.rpartition(".")
    quote = "`" if last.startswith("`") else ('"' if last.startswith('"') else "")
    name = f"{quote}{identifier}{quote}"
    return f"{prefix}.{name}" if prefix else name


def committed_runs(session: SparkSession, relation: str) -> DataFrame:
    if not session.catalog.tableExists(relation.replace("`", "")):
        return session.createDataFrame([], COMMITTED_SCHEMA)
    return session.table(relation).select(
        "sync_id",
        "sync_run_id",
        F.col("started_at").alias("sync_run_started_at"),
        "manifest_version",
    )


def model(dbt, session):
    relation = sibling_relation(str(dbt.this), dbt.config.get("committed_runs_identifier"))
    return committed_runs(session, relation)
