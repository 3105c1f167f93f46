"""Reading the shared tables of cases in tests/data/ (snapshot_times.csv, run_counters.csv,
payload_rules.csv): each is read by a test of the Python library (tests/python) and by the
test of the SQL source modes (tests/dbt/test_rule_tables_sql.py), so both are held to the
same expected rows, written by hand.

A table has a `case` column naming the case, input columns, and `expected_<output>` columns.
Cells are text as written (an empty cell is the empty string); `<null>` is null. A case may
span several lines (one per input row, e.g. per attempt): its expected values are on its first
line, and its later lines leave them empty."""

import csv
import hashlib
import json
import re
from pathlib import Path

DATA = Path(__file__).resolve().parent / "data"
NULL = "<null>"


def cell(text: str):
    return None if text == NULL else text


def read_cases(name: str) -> list[dict]:
    """The cases of tests/data/<name>.csv, in file order: dicts with `case`, `inputs` (one
    dict per line of the case, without the expected columns) and `expected` (a dict keyed by
    the output name, without the `expected_` prefix)."""
    cases: dict[str, dict] = {}
    with open(DATA / f"{name}.csv", newline="", encoding="utf-8") as handle:
        for line in csv.DictReader(handle):
            inputs = {
                k: cell(v) for k, v in line.items() if k != "case" and not k.startswith("expected_")
            }
            expected = {
                k.removeprefix("expected_"): cell(v)
                for k, v in line.items()
                if k.startswith("expected_")
            }
            if line["case"] not in cases:
                cases[line["case"]] = {"case": line["case"], "inputs": [], "expected": expected}
            else:
                assert not any(expected.values()), f"{name}: expected values on line {line}"
            cases[line["case"]]["inputs"].append(inputs)
    return list(cases.values())


# payload_rules.csv: every case under these rules (the vars sync_logs_payload_fields_to_drop,
# sync_logs_payload_fields_to_hash, sync_logs_max_payload_bytes and the environment variable
# SYNC_LOGS_PAYLOAD_HASH_SALT). In expected_fields, `<hash:VALUE>` is sha256(salt || VALUE),
# `<sha256 of payload>` the SHA-256 of the case's payload and `<salted sha256 of payload>`
# sha256(salt || payload), all hex, computed here with hashlib from the documented formulas.
PAYLOAD_RULES = {"drop": ["phone"], "hash": ["email", "seats"], "salt": "pepper", "max_bytes": 120}


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def expected_fields(payload: str | None, expected: str | None) -> str | None:
    """`expected` with its placeholders replaced (see PAYLOAD_RULES)."""
    if expected is None:
        return None
    salt = PAYLOAD_RULES["salt"]
    text = expected.replace("<sha256 of payload>", _sha256(payload or ""))
    text = text.replace("<salted sha256 of payload>", _sha256(salt + (payload or "")))
    return re.sub(r"<hash:([^>]*)>", lambda m: _sha256(salt + m.group(1)), text)


def same_fields(got: str | None, expected: str | None) -> bool:
    """A JSON object as JSON (a payload the privacy rules rewrite keeps its members, not its
    spacing, and PostgreSQL's jsonb writes its own key order); anything else, the truncation
    marker and a payload no rule rewrites (no named field) byte for byte."""
    if got is None or expected is None or got == expected:
        return got == expected
    try:
        rewritten, value = json.loads(expected), json.loads(got)
    except ValueError:
        return got == expected
    if not isinstance(rewritten, dict) or TRUNCATED in rewritten:
        return got == expected
    return value == rewritten


TRUNCATED = "_sync_logs_truncated"
