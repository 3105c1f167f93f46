"""The payload rules of sync_logs.canonical.payloads (`protect_payloads`, after the payload
check of sync_logs.canonical.records) against the shared table of cases
tests/data/payload_rules.csv, and its settings' checks (`payload_rules`) against
tests/data/payload_rule_errors.csv; the SQL staging macros (`protect_payload`, `payload_truncated`,
PostgreSQL) are held to the same table in tests/dbt/test_rule_tables_sql.py."""

from pyspark.sql import functions as F

from case_tables import PAYLOAD_RULES, expected_fields, read_cases, same_fields
from record_rows import read_record
from sync_logs.canonical import payloads as payload_rules
from sync_logs.canonical import records as record_reading

CASES = read_cases("payload_rules")


def record(index: int, payload: str | None) -> tuple:
    return read_record(row_index=index, record_payload=payload)


def test_payload_rules_give_every_expected_row_of_the_table(spark):
    records = spark.createDataFrame(
        [record(i, case["inputs"][0]["payload"]) for i, case in enumerate(CASES)],
        record_reading.RECORD_SCHEMA,
    ).withColumn("payload_problem", record_reading.payload_problem(F.col("record_payload")))
    result = payload_rules.protect_payloads(records, PAYLOAD_RULES)
    got = {
        CASES[r["row_index"]]["case"]: (r["record_payload"], r["payload_truncated"])
        for r in result.collect()
    }
    wrong = {}
    for case in CASES:
        payload = case["inputs"][0]["payload"]
        want = expected_fields(payload, case["expected"]["fields"])
        truncated = case["expected"]["payload_truncated"] == "true"
        fields, flag = got[case["case"]]
        if not same_fields(fields, want) or flag != truncated:
            wrong[case["case"]] = {"got": (fields, flag), "expected": (want, truncated)}
    assert wrong == {}


def test_payload_rule_settings_give_every_expected_error_of_the_table():
    got = {}
    for case in read_cases("payload_rule_errors"):
        line = case["inputs"][0]
        try:
            payload_rules.payload_rules(
                line["fields_to_drop"],
                line["fields_to_hash"],
                line["salt"],
                line["max_payload_bytes"],
            )
            got[case["case"]] = ""
        except ValueError as error:
            got[case["case"]] = str(error)
    assert got == {
        case["case"]: case["expected"]["error"] for case in read_cases("payload_rule_errors")
    }
