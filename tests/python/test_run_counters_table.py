"""The run counters of sync_logs.canonical.runs (`run_counters`) against the shared table of
cases tests/data/run_counters.csv (one run per case, one changelog row per line); the SQL
source modes (mode `census` derives its runs) are held to the same table in
tests/dbt/test_rule_tables_sql.py."""

from case_tables import read_cases
from sync_logs.canonical import runs as run_rules

CASES = read_cases("run_counters")
COUNTERS = list(CASES[0]["expected"])
CHANGELOG_SCHEMA = (
    "sync_id bigint, sync_run_id bigint, op_type string, status string, raw_status string, "
    "redelivery_count int, payload_problem string, payload_truncated boolean, "
    "timestamp_problem string"
)


def test_run_counters_give_every_expected_row(spark):
    changelog = spark.createDataFrame(
        [
            (1, run, line["op_type"], line["status"], "succeeded", 0, None, False, None)
            for run, case in enumerate(CASES)
            for line in case["inputs"]
        ],
        CHANGELOG_SCHEMA,
    )
    got = {
        CASES[r["sync_run_id"]]["case"]: {name: str(r[name]) for name in COUNTERS}
        for r in run_rules.run_counters(changelog).collect()
    }
    assert got == {case["case"]: case["expected"] for case in CASES}
