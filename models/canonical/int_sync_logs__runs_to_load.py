"""The valid run folders this build loads: new, changed, or not yet committed.

Every valid run of the manifest whose current `manifest_version` is not committed
(`int_sync_logs__committed_runs`) is loaded: new runs, runs whose folder changed (new
fingerprint, new version), and runs of an earlier build that failed before `sync_runs` was
written (the next build retries them). On the first build every valid run is loaded.
"""

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

RUN_KEY = ["sync_id", "sync_run_id"]


def runs_to_load(manifest: DataFrame, committed: DataFrame) -> DataFrame:
    valid = manifest.filter(F.col("is_valid"))
    valid = valid.join(
        committed.select(*RUN_KEY, "manifest_version"), [*RUN_KEY, "manifest_version"], "left_anti"
    )
    return valid.drop("metadata_text", "is_valid", "invalid_reason")


def model(dbt, session):
    return runs_to_load(
        dbt.ref("int_sync_logs__run_manifest"), dbt.ref("int_sync_logs__committed_runs")
    )
