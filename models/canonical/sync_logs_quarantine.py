"""Every file or run folder not loaded, with its reason, and the warnings of loaded runs.

Rebuilt every build from the current listing (stray files, bad folder names, fact file
problems), the run manifest (run folders not loaded, unknown metadata keys) and the persisted
load tables (record files not loaded, record-level warnings counted in `sync_runs`), so it
survives rebuilds: problems found when a run was loaded stay reported.
`severity = 'not_loaded'`: the item was not loaded; `'warning'`: loaded, with a warning.
"""

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F

QUARANTINE_COLUMNS = [
    "quarantine_id",
    "item_type",
    "severity",
    "path",
    "org_id",
    "sync_id",
    "sync_run_id",
    "reason",
    "record_count",
    "detected_by",
]


def entry(
    frame: DataFrame,
    item_type: str,
    severity: str,
    path: Column,
    reason: Column,
    detected_by: str,
    record_count: Column | None = None,
    ids: tuple = ("org_id", "sync_id", "sync_run_id"),
) -> DataFrame:
    return frame.select(
        F.lit(item_type).alias("item_type"),
        F.lit(severity).alias("severity"),
        path.alias("path"),
        *[
            (F.col(name) if name in ids else F.lit(None)).cast("bigint").alias(name)
            for name in ("org_id", "sync_id", "sync_run_id")
        ],
        reason.alias("reason"),
        (record_count if record_count is not None else F.lit(None)).cast("bigint").alias(
            "record_count"
        ),
        F.lit(detected_by).alias("detected_by"),
    )


def build_quarantine(
    lake_files: DataFrame,
    manifest: DataFrame,
    record_files: DataFrame,
    runs: DataFrame,
    facts: DataFrame,
) -> DataFrame:
    parts = [
        entry(
            lake_files.filter(F.col("problem").isNotNull()),
            "file",
            "not_loaded",
            F.col("path"),
            F.col("problem"),
            "lake_listing",
        ),
        entry(
            manifest.filter(~F.col("is_valid")),
            "run_folder",
            "not_loaded",
            F.col("run_folder"),
            F.col("invalid_reason"),
            "run_manifest",
        ),
        entry(
            manifest.filter(F.col("is_valid") & (F.size("unknown_keys") > 0)),
            "run_folder",
            "warning",
            F.concat(F.col("run_folder"), F.lit("/metadata.json")),
            F.concat(
                F.lit("metadata.json has unknown key(s), ignored: "),
                F.array_join("unknown_keys", ", "),
            ),
            "run_manifest",
        ),
        entry(
            record_files.filter(~F.col("is_loaded")),
            "file",
            "not_loaded",
            F.col("path"),
            F.col("problem"),
            "record_file_load",
        ),
        entry(
            runs.filter(F.col("num_payload_errors") > 0),
            "records",
            "warning",
            F.col("run_folder"),
            F.concat(
                F.col("num_payload_errors").cast("string"),
                F.lit(
                    " record(s) whose record_payload is null, empty or not a JSON object: "
                    "loaded with fields = null"
                ),
            ),
            "record_load",
            F.col("num_payload_errors"),
        ),
        entry(
            runs.filter(F.col("num_unknown_status") > 0),
            "records",
            "warning",
            F.col("run_folder"),
            F.concat(
                F.col("num_unknown_status").cast("string"),
                F.lit(" record(s) with an unknown raw status: loaded with status = 'failed'"),
            ),
            "record_load",
            F.col("num_unknown_status"),
        ),
        entry(
            facts.filter(F.col("row_kind") == "file_problem"),
            "file",
            "not_loaded",
            F.col("path"),
            F.col("problem"),
            "fact_file_load",
            ids=("org_id",),
        ),
    ]
    result = parts[0]
    for part in parts[1:]:
        result = result.unionByName(part)
    return result.withColumn(
        "quarantine_id",
        F.sha2(F.concat_ws("|", "item_type", "severity", "path", "reason"), 256),
    ).select(*QUARANTINE_COLUMNS)


def model(dbt, session):
    return build_quarantine(
        dbt.ref("int_sync_logs__lake_files"),
        dbt.ref("int_sync_logs__run_manifest"),
        dbt.ref("int_sync_logs__record_files"),
        dbt.ref("sync_runs"),
        dbt.ref("int_sync_logs__facts"),
    )
