"""The rule functions of sync_logs.canonical.changelog (`map_status`, `base_op_type`,
`assign_op_types`) against the shared table of cases tests/data/status_rules.csv; the SQL
macros of the source modes are held to the same table in tests/dbt/test_status_rules_sql.py."""

from pyspark.sql import functions as F

from rules_table import cases
from sync_logs.canonical import changelog as changelog_rules

CASES = cases()
WORK_SCHEMA = (
    "sync_id bigint, row_id string, operation string, behavior string, raw_status string, "
    "status_message string, run_error string, payload string, run_seq int, "
    "batch_started_at timestamp, batch_type string, batch_number int, batch_file string, "
    "batch_row_index bigint"
)


def rule_outputs(spark) -> dict[str, dict]:
    work = spark.createDataFrame(
        [(i, c["row_id"], c["operation"], c["behavior"], c["raw_status"], c["status_message"],
          c["run_error"], c["payload"], 1, None, "records_updated", 0,
          "records_updated.0.parquet", 0)
         for i, c in enumerate(CASES)],
        WORK_SCHEMA,
    )
    status, reason = changelog_rules.map_status(F.col("raw_status"), F.col("status_message"),
                                   F.col("run_error"), F.col("row_id"))
    work = (work.withColumn("status", status).withColumn("failed_reason", reason)
            .withColumn("payload_hash", changelog_rules.payload_hash(F.col("payload"))))
    # the row's last succeeded state before this run, as succeeded_states_before gives it
    prior = spark.createDataFrame(
        [(i, c["row_id"], c["previous_state"] == "removed", c["previous_payload"])
         for i, c in enumerate(CASES) if c["previous_state"] != "none"],
        "sync_id bigint, row_id string, is_removed boolean, previous_payload string",
    ).select(
        "sync_id", "row_id",
        F.struct(F.col("is_removed").alias("is_removed"),
                 changelog_rules.payload_hash(F.col("previous_payload")).alias("payload_hash")).alias("state"),
    )
    result = changelog_rules.assign_op_types(work, prior)
    return {
        CASES[r["sync_id"]]["case"]: {
            "status": r["status"], "failed_reason": r["failed_reason"],
            "op_type": r["op_type"], "payload_changed": r["payload_changed"],
        }
        for r in result.collect()
    }


def test_python_rules_give_every_expected_row_of_the_table(spark):
    got = rule_outputs(spark)
    expected = {c["case"]: c["expected"] for c in CASES}
    assert got == expected
