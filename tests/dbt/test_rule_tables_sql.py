"""The rule macros of the SQL source modes against the shared tables of cases in tests/data/,
on DuckDB and PostgreSQL: snapshot_times.csv (`snapshot_row_times`, which the snapshot of modes
`census` and `hightouch` uses), run_counters.csv (`run_counters`, of the runs mode `census`
derives) and, on PostgreSQL (the only warehouse where the SQL layer applies them),
payload_rules.csv (`protect_payload`, `payload_truncated`). The Python library is held to the
same tables in tests/python/test_*_table.py.

One `dbt compile --inline` per engine renders every macro at once (a section per table); the
engine runs each section over its table of cases, loaded as written."""

import json
from datetime import datetime

import duckdb
import pytest
from marts_harness import PROFILES, PROJECT, install_package, normalise, pg_connect

from case_tables import PAYLOAD_RULES, expected_fields, read_cases, same_fields
from sync_logs.canonical import plan as plan_rules
from sync_logs_dev.dbt_invoke import run_dbt

TABLES = {
    "snapshot_times": {
        "columns": [
            ("sync_id", "integer"),
            ("row_id", "varchar"),
            ("sync_run_id", "bigint"),
            ("run_started_at", "timestamp"),
            ("batch_started_at", "timestamp"),
            ("batch_ended_at", "timestamp"),
            ("op_type", "varchar"),
            ("status", "varchar"),
            ("log_id", "varchar"),
        ],
        "sql": """
select sync_id as case_id, last_attempted_at, last_succeeded_at, first_added_at
from ({{ sync_logs.snapshot_row_times('snapshot_times') }}) as times""",
    },
    "run_counters": {
        "columns": [
            ("sync_id", "integer"),
            ("sync_run_id", "integer"),
            ("op_type", "varchar"),
            ("status", "varchar"),
        ],
        "sql": """
select sync_run_id as case_id, {{ sync_logs.run_counters() }}
from run_counters
group by sync_id, sync_run_id""",
    },
    "payload_rules": {
        "columns": [("case_id", "integer"), ("payload", "varchar")],
        "sql": """
select
    case_id,
    {{ sync_logs.protect_payload('payload') }} as fields,
    {{ sync_logs.payload_truncated(sync_logs.protect_payload('payload')) }} as payload_truncated
from payload_rules""",
        "engines": ["postgres"],
    },
}
# the settings' checks render no SQL: one engine renders them, one line per case


def rendered_check(index: int, line: dict) -> str:
    drop, hashed, salt, limit = (
        json.dumps(line[name] or "")
        for name in ("fields_to_drop", "fields_to_hash", "salt", "max_payload_bytes")
    )
    return (
        f"{{{{ tojson([{index}, sync_logs.payload_rules_from(fromjson({drop}), "
        f"fromjson({hashed}), {salt}, fromjson({limit}))['problem']]) }}}}"
    )


TABLES["payload_rule_errors"] = {
    "engines": ["duckdb"],
    "sql": "\n".join(
        rendered_check(index, case["inputs"][0])
        for index, case in enumerate(read_cases("payload_rule_errors"))
    ),
}
# the partitions a reload drops: rendered once, run on Spark (the package mode's engine) over
# the build plan that sync_logs.canonical.plan makes of each case
TABLES["reload_partitions"] = {
    "engines": ["duckdb"],
    "sql": "{{ sync_logs.superseded_partitions_sql("
    "'plan_cases', 'record_file_cases', 'runs_to_load_cases') }}",
}
RENDERED_ONLY = {"payload_rule_errors", "reload_partitions"}
ENGINES = ["duckdb", "postgres"]
# the payload rules of payload_rules.csv, as the vars and environment give them
PAYLOAD_VARS = {
    "sync_logs_payload_fields_to_drop": PAYLOAD_RULES["drop"],
    "sync_logs_payload_fields_to_hash": PAYLOAD_RULES["hash"],
    "sync_logs_max_payload_bytes": PAYLOAD_RULES["max_bytes"],
}


def tables_of(engine: str) -> list[str]:
    return [table for table, spec in TABLES.items() if engine in spec.get("engines", ENGINES)]


SECTION = "-- rule table: "


def case_rows(table: str) -> list[tuple]:
    """The table's input lines as rows of its columns: the case's index is the id of its
    sync (snapshot times, one row `r` per case) or its run (run counters)."""
    rows = []
    for index, case in enumerate(read_cases(table)):
        for n, line in enumerate(case["inputs"]):
            if table == "snapshot_times":
                rows.append(
                    (
                        index,
                        "r",
                        int(line["sync_run_id"]),
                        line["run_started_at"],
                        line["batch_started_at"],
                        line["batch_ended_at"],
                        line["op_type"],
                        line["status"],
                        f"log-{n:02d}",
                    )
                )
            elif table == "run_counters":
                rows.append((1, index, line["op_type"], line["status"]))
            else:
                rows.append((index, line["payload"]))
    return rows


def expected(table: str) -> dict[str, dict]:
    """Expected values as the engine's rows read back (`normalise`): times as
    `yyyy-mm-dd hh:mm:ss` text, counters as numbers."""
    result = {}
    for case in read_cases(table):
        if table == "snapshot_times":
            result[case["case"]] = {k: v and f"{v}:00" for k, v in case["expected"].items()}
        elif table == "run_counters":
            result[case["case"]] = {k: float(v) for k, v in case["expected"].items()}
        else:
            payload = case["inputs"][0]["payload"]
            result[case["case"]] = {
                "fields": expected_fields(payload, case["expected"]["fields"]),
                "payload_truncated": case["expected"]["payload_truncated"] == "true",
            }
    return result


def differences(table: str, got: dict[str, dict]) -> dict[str, dict]:
    """The cases whose row is not the expected one (payloads: see `same_fields`)."""
    wrong = {}
    for case, want in expected(table).items():
        row = got.get(case)
        same = row is not None and (
            row == want
            if table != "payload_rules"
            else same_fields(row["fields"], want["fields"])
            and row["payload_truncated"] == want["payload_truncated"]
        )
        if not same:
            wrong[case] = {"got": row, "expected": want}
    return wrong


@pytest.fixture(scope="module")
def compiled(tmp_path_factory):
    """compiled(engine) -> {table: SQL} for the engine's tables, one compile per engine."""
    done: dict[str, dict[str, str]] = {}

    def compile_for(name: str) -> dict[str, str]:
        if name not in done:
            done[name] = compile_tables(name, tmp_path_factory.mktemp(f"rule_tables_{name}"))
        return done[name]

    return compile_for


def compile_tables(name: str, work) -> dict[str, str]:
    env = {"SYNC_LOGS_DUCKDB_PATH": str(work / "rules.duckdb")}
    dbt_vars = {"sync_logs_source": "tables"}
    if name == "postgres":
        pg_connect().close()
        dbt_vars.update(PAYLOAD_VARS)
        env["SYNC_LOGS_PAYLOAD_HASH_SALT"] = PAYLOAD_RULES["salt"]
    install_package()
    text = "\n".join(f"{SECTION}{table}\n{TABLES[table]['sql']}" for table in tables_of(name))
    result = run_dbt(
        ["compile", "--target", name, "--inline", text],
        project_dir=PROJECT,
        target_dir=work,
        profiles_dir=PROFILES,
        dbt_vars=dbt_vars,
        env=env,
    )
    compiled_code = result.result.results[0].node.compiled_code
    sections = {}
    for part in compiled_code.split(SECTION)[1:]:
        table, sql = part.split("\n", 1)
        sections[table.strip()] = sql
    return sections


def run_table(name: str, sql: str, table: str) -> dict[str, dict]:
    spec = TABLES[table]
    columns = ", ".join(f"{column} {kind}" for column, kind in spec["columns"])
    rows = case_rows(table)
    if name == "duckdb":
        connection = duckdb.connect()
        connection.execute(f"create table {table} ({columns})")
        connection.executemany(
            f"insert into {table} values ({', '.join('?' for _ in spec['columns'])})", rows
        )
        cursor = connection.execute(sql)
        result = cursor.fetchall()
        names = [d[0] for d in cursor.description]
        connection.close()
    else:
        connection = pg_connect()
        try:
            with connection.cursor() as cursor:
                cursor.execute(f"create temporary table {table} ({columns})")
                cursor.executemany(
                    f"insert into {table} values ({', '.join('%s' for _ in spec['columns'])})", rows
                )
                cursor.execute(sql)
                result = cursor.fetchall()
                names = [d[0] for d in cursor.description]
        finally:
            connection.close()
    cases = read_cases(table)
    return {
        cases[row[0]]["case"]: dict(zip(names[1:], map(normalise, row[1:]), strict=True))
        for row in result
    }


ROWS = [
    (engine, table)
    for engine in ENGINES
    for table in tables_of(engine)
    if table not in RENDERED_ONLY
]


@pytest.mark.parametrize("engine, table", ROWS)
def test_sql_macros_give_every_expected_row_of_the_table(compiled, engine, table):
    sql = compiled(engine)[table]
    assert differences(table, run_table(engine, sql, table)) == {}


def test_sql_payload_rule_checks_give_every_expected_error_of_the_table(compiled):
    cases = read_cases("payload_rule_errors")
    lines = compiled("duckdb")["payload_rule_errors"].strip().splitlines()
    got = {cases[index]["case"]: problem or "" for index, problem in map(json.loads, lines)}
    assert got == {case["case"]: case["expected"]["error"] for case in cases}


MANIFEST_SCHEMA = (
    "sync_id bigint, sync_run_id bigint, sync_run_started_at timestamp, manifest_version bigint, "
    "is_valid boolean, files array<struct<file_kind: string>>"
)


def reload_frames(spark, cases):
    """Per case a sync (its index) with one run: the manifest, committed and uncommitted runs
    that the build plan reads, and the run's record files (`vN:rows=R`: a loaded file of
    manifest version N with R rows; `vN:quarantined`: a file that is not loaded)."""
    started = datetime(2026, 10, 1, 6, 0)
    manifest, committed, uncommitted, files = [], [], [], []
    for sync_id, case in enumerate(cases):
        line = case["inputs"][0]
        listing = [("run_metadata",)] if line["in_lake"] == "true" else []
        manifest.append(
            (
                sync_id,
                1,
                started,
                int(line["manifest_version"]),
                line["is_valid"] == "true",
                listing,
            )
        )
        if line["committed_version"] is not None:
            committed.append((sync_id, 1, started, int(line["committed_version"])))
        if line["uncommitted"] == "true":
            uncommitted.append((sync_id, 1, started))
        for token in line["files"].split():
            version, what = token.split(":")
            loaded = what != "quarantined"
            rows = int(what.removeprefix("rows=")) if loaded else 5
            files.append((sync_id, 1, int(version.removeprefix("v")), loaded, rows))
    return (
        spark.createDataFrame(manifest, MANIFEST_SCHEMA),
        spark.createDataFrame(committed, plan_rules.COMMITTED_SCHEMA),
        spark.createDataFrame(uncommitted, plan_rules.UNCOMMITTED_SCHEMA),
        spark.createDataFrame(
            files,
            "sync_id bigint, sync_run_id bigint, manifest_version bigint, "
            "is_loaded boolean, num_rows bigint",
        ),
    )


def test_build_plan_then_reload_drop_give_every_expected_row_of_the_table(spark, compiled):
    cases = read_cases("reload_partitions")
    manifest, committed, uncommitted, files = reload_frames(spark, cases)
    plan = plan_rules.build_plan(manifest, committed, uncommitted=uncommitted)
    # int_sync_logs__runs_to_load: the valid manifest rows of the runs the plan loads
    loads = plan.filter("action = 'load'").select("sync_id", "sync_run_id")
    runs_to_load = manifest.filter("is_valid").join(loads, ["sync_id", "sync_run_id"])
    for name, frame in [
        ("plan_cases", plan),
        ("record_file_cases", files),
        ("runs_to_load_cases", runs_to_load),
    ]:
        frame.createOrReplaceTempView(name)
    dropped = {r["sync_id"] for r in spark.sql(compiled("duckdb")["reload_partitions"]).collect()}
    actions = {r["sync_id"]: r["action"] for r in plan.collect()}
    got = {
        case["case"]: {"action": actions.get(index), "dropped": str(index in dropped).lower()}
        for index, case in enumerate(cases)
    }
    assert got == {case["case"]: case["expected"] for case in cases}
