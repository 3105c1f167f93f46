"""The SQL macros of the source modes (macros/rules/: changelog_status,
changelog_failed_reason, base_op_type, op_type, payload_changed) against the shared table of
cases tests/data/status_rules.csv, on DuckDB: the Python rule functions are held to the same
table in tests/python/test_status_rules_table.py. One `dbt compile --inline` renders the
macros; DuckDB runs the SQL over the cases."""

import duckdb
import pytest
from marts_harness import PROFILES, PROJECT, install_package

from rules_table import INPUTS, cases
from sync_logs_dev.dbt_invoke import run_dbt

CASES = cases()

RULES_SQL = """
with typed as (
    select
        case_id,
        {{ sync_logs.changelog_status('raw_status', 'row_id') }} as status,
        {{ sync_logs.changelog_failed_reason('raw_status', 'status_message', 'run_error',
                                             'row_id') }} as failed_reason,
        {{ sync_logs.op_type('row_id', sync_logs.base_op_type('row_id', 'operation', 'behavior'),
                             'previous_state') }} as op_type,
        payload,
        previous_payload
    from cases
)
select
    case_id,
    status,
    failed_reason,
    op_type,
    {{ sync_logs.payload_changed('op_type', 'payload', 'previous_payload') }} as payload_changed
from typed
"""


@pytest.fixture(scope="module")
def compiled_sql(tmp_path_factory):
    work = tmp_path_factory.mktemp("status_rules_sql")
    install_package()
    result = run_dbt(["compile", "--target", "duckdb", "--inline", RULES_SQL],
                     project_dir=PROJECT, target_dir=work, profiles_dir=PROFILES,
                     env={"SYNC_LOGS_DUCKDB_PATH": str(work / "rules.duckdb")})
    return result.result.results[0].node.compiled_code


def test_sql_macros_give_every_expected_row_of_the_table(compiled_sql):
    connection = duckdb.connect()
    columns = ", ".join(f"{name} varchar" for name in INPUTS)
    connection.execute(f"create table cases (case_id integer, {columns})")
    connection.executemany(
        f"insert into cases values (?, {', '.join('?' for _ in INPUTS)})",
        [[i] + [None if name == "previous_state" and c[name] == "none" else c[name]
                for name in INPUTS] for i, c in enumerate(CASES)],
    )
    got = {
        CASES[case_id]["case"]: {"status": status, "failed_reason": reason,
                                 "op_type": op_type, "payload_changed": changed}
        for case_id, status, reason, op_type, changed
        in connection.execute(compiled_sql).fetchall()
    }
    assert got == {c["case"]: c["expected"] for c in CASES}
