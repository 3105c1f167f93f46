"""The valid run folders this build loads: new, changed, or not yet committed.

A run's load is committed when `sync_runs` (the last canonical table a build writes) holds the
run with its current `manifest_version`. Every run of the manifest that is valid and not
committed is loaded: new runs, runs whose folder changed (new fingerprint, new version), and runs
of an earlier build that failed before `sync_runs` was written (the next build retries them).
On the first build, or when `sync_runs` is absent, every valid run is loaded.

`sync_runs` is read by name (same catalog and schema as this model, identifier from the
`committed_runs_identifier` config) rather than through `ref`, which would be a cycle.
"""

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

RUN_KEY = ["sync_id", "sync_run_id"]


def sibling_relation(this_name: str, identifier: str) -> str:
    """The relation `identifier` in the same catalog/schema as `this_name`."""
    prefix, _, last = this_name.rpartition(".")
    quote = "`" if last.startswith("`") else ('"' if last.startswith('"') else "")
    name = f"{quote}{identifier}{quote}"
    return f"{prefix}.{name}" if prefix else name


def committed_runs(session: SparkSession, relation: str) -> DataFrame | None:
    if not session.catalog.tableExists(relation.replace("`", "")):
        return None
    return session.table(relation).select(*RUN_KEY, "manifest_version")


def runs_to_load(manifest: DataFrame, committed: DataFrame | None) -> DataFrame:
    valid = manifest.filter(F.col("is_valid"))
    if committed is not None:
        valid = valid.join(committed, [*RUN_KEY, "manifest_version"], "left_anti")
    return valid.drop("metadata_text", "is_valid", "invalid_reason")


def model(dbt, session):
    manifest = dbt.ref("int_sync_logs__run_manifest")
    relation = sibling_relation(str(dbt.this), dbt.config.get("committed_runs_identifier"))
    return runs_to_load(manifest, committed_runs(session, relation))
