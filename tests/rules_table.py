"""The one table of cases for the status, failed_reason, op_type and payload_changed rules
(tests/data/status_rules.csv), read by the test of the Python model functions and by the test
of the SQL macros of the source modes, so both paths are held to the same expected rows.

Cells are text as written (an empty cell is the empty string, spaces are kept); `<null>` is
null. `previous_state` is the row's last succeeded state before the attempt's run: `none`
(never succeeded), `present` (with `previous_payload`) or `removed`. `run_error` is the run's
`sync_run_error`. Expected values were written by hand from the contract
(`models/docs.md`: sync_logs_status, sync_logs_failed_reason, sync_logs_op_type,
sync_logs_payload_changed)."""

import csv
from pathlib import Path

CASES_CSV = Path(__file__).resolve().parent / "data" / "status_rules.csv"
INPUTS = ["raw_status", "status_message", "run_error", "row_id", "operation", "behavior",
          "payload", "previous_state", "previous_payload"]
EXPECTED = ["status", "failed_reason", "op_type", "payload_changed"]


def cell(text: str):
    return None if text == "<null>" else text


def cases() -> list[dict]:
    """One dict per case: `case`, the inputs, and `expected` (a dict of the four outputs,
    payload_changed as a bool or None)."""
    result = []
    with open(CASES_CSV, newline="", encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            expected = {name: cell(row[f"expected_{name}"]) for name in EXPECTED}
            changed = expected["payload_changed"]
            expected["payload_changed"] = None if changed is None else changed == "true"
            case = {"case": row["case"], **{name: cell(row[name]) for name in INPUTS}}
            assert case["previous_state"] in ("none", "present", "removed"), row
            result.append({**case, "expected": expected})
    return result
