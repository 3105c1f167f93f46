"""`--target thrift`: the SQL layer (staging, intermediate, marts) built by dbt-spark's thrift
method through a Spark Thrift server, over canonical tables loaded as seeds through the same
connection (`sync_logs_source: tables`), compared with DuckDB's build of the same project."""

from __future__ import annotations

import datetime as dt
import decimal
import json
import shutil
from pathlib import Path

import duckdb
import pytest

from sync_logs_dev.dbt_subprocess import DbtFailed, run_dbt_subprocess

PROJECT_DIR = Path(__file__).resolve().parents[2]  # the checkout
INTEGRATION_PROJECT = PROJECT_DIR / "tests" / "dbt" / "project"
TEST_PROFILES = PROJECT_DIR / "tests" / "dbt" / "profiles"
SCHEMA = "thrift_build"
# The SQL layer. (Selected by folder tag: the canonical Python models cannot run through a
# Thrift server, and in `tables` mode the canonical tables are the seeds.)
SQL_LAYER = "tag:sync_logs_staging tag:sync_logs_intermediate tag:sync_logs_marts"
SEEDS = "fixture_* sync_logs_error_categories"


def installing_project(work: Path) -> Path:
    """The integration project (seeds of canonical tables), installing this repository."""
    project = work / "project"
    shutil.copytree(INTEGRATION_PROJECT, project,
                    ignore=shutil.ignore_patterns("dbt_packages", "target", "logs", "*.lock",
                                                  "package-lock.yml", ".user.yml"))
    (project / "packages.yml").write_text(f"packages:\n  - local: {PROJECT_DIR}\n")
    return project


def normalise(value):
    if value is None or isinstance(value, bool | str):
        return value
    if isinstance(value, dt.datetime):
        if value.tzinfo is not None:
            value = value.astimezone(dt.UTC).replace(tzinfo=None)
        return value.isoformat(sep=" ")
    if isinstance(value, dt.date):
        return value.isoformat()
    if isinstance(value, decimal.Decimal | float | int):
        number = round(float(value), 6)
        return 0.0 if number == 0 else number
    return str(value)


def as_rows(columns: list[str], rows) -> list[dict]:
    """Rows as dicts, in an order that does not depend on the table's column order (Spark puts
    a table's partition columns last)."""
    result = [{c: normalise(v) for c, v in zip(columns, row, strict=True)} for row in rows]
    return sorted(result, key=lambda row: [(row[c] is None, str(row[c])) for c in sorted(row)])


def dbt(args, *, target, work, project, env, profiles=None):
    try:
        return run_dbt_subprocess(
            args, target=target, work_dir=work, project_dir=project,
            dbt_vars={"sync_logs_source": "tables"}, env=env, profiles=profiles,
        )
    except DbtFailed as error:
        pytest.fail(str(error), pytrace=False)


@pytest.fixture(scope="module")
def builds(thrift_server, tmp_path_factory):
    work = tmp_path_factory.mktemp("thrift_build")
    project = installing_project(work)
    thrift_env = {"SYNC_LOGS_THRIFT_HOST": "127.0.0.1",
                  "SYNC_LOGS_THRIFT_PORT": str(thrift_server.port),
                  "SYNC_LOGS_SCHEMA": SCHEMA}
    duck_env = {"SYNC_LOGS_SCHEMA": SCHEMA,
                "SYNC_LOGS_DUCKDB_PATH": str(work / "reference.duckdb")}
    dbt(["deps"], target="thrift", work=work / "thrift", project=project, env=thrift_env)
    runs = {}
    for target, env, profiles in (("thrift", thrift_env, None),
                                  ("duckdb", duck_env, TEST_PROFILES)):
        common = {"target": target, "work": work / target, "project": project, "env": env,
                  "profiles": profiles}
        runs[target] = [
            dbt(["seed", "--select", SEEDS, "--threads", "4"], **common),
            dbt(["run", "--select", SQL_LAYER, "--threads", "4"], **common),
        ]
    return {"server": thrift_server, "duckdb": work / "reference.duckdb", "runs": runs,
            "work": work}


def thrift_rows(builds, relation: str) -> list[dict]:
    return as_rows(*builds["server"].query_with_columns(f"select * from {SCHEMA}.{relation}"))


def duckdb_rows(builds, relation: str) -> list[dict]:
    with duckdb.connect(str(builds["duckdb"]), read_only=True) as connection:
        result = connection.execute(f"select * from {SCHEMA}.{relation}")
        return as_rows([d[0] for d in result.description], result.fetchall())


def test_sql_layer_built_through_thrift(builds):
    seed, run = builds["runs"]["thrift"]
    assert "Completed successfully" in run.output
    target_path = builds["work"] / "thrift" / "dbt"
    manifest = json.loads((target_path / "manifest.json").read_text())
    results = json.loads((target_path / "run_results.json").read_text())["results"]
    built = {result["unique_id"] for result in results if result["status"] == "success"}
    assert len(built) == len(results) >= 20, "some SQL models did not build through thrift"
    languages = {manifest["nodes"][node]["language"] for node in built}
    assert languages == {"sql"}
    tables = {name for _, name, _ in builds["server"].query(f"show tables in {SCHEMA}")}
    marts = {name for name in tables if name.startswith("sync_logs__")}
    assert len(marts) >= 10, f"marts built through thrift: {sorted(marts)}"
    assert {"stg_sync_logs__sync_changelog", "fixture_sync_changelog"} <= tables


def test_every_mart_matches_duckdb(builds):
    tables = {name for _, name, _ in builds["server"].query(f"show tables in {SCHEMA}")}
    marts = sorted(name for name in tables if name.startswith("sync_logs__"))
    assert marts
    for mart in marts:
        rows = thrift_rows(builds, mart)
        assert rows == duckdb_rows(builds, mart), f"{mart} differs between thrift and duckdb"
    non_empty = [mart for mart in marts if thrift_rows(builds, mart)]
    assert len(non_empty) >= len(marts) - 2, f"marts empty on thrift: {set(marts) - set(non_empty)}"


def test_most_common_errors_through_thrift(builds):
    """Expected rows written by hand from the fixture (tests/dbt/project/seeds)."""
    rows = thrift_rows(builds, "sync_logs__errors")
    got = sorted((r["failed_reason"], r["error_category"], r["num_attempts"], r["num_rows"])
                 for r in rows)
    assert got == sorted([
        ("Rate limit exceeded, retry later", "rate_limit", 2, 2),
        ("Unauthorized: invalid API key", "auth", 2, 1),
        ("duplicate identifier", "duplicate", 2, 1),
        ("Invalid email address", "validation", 1, 1),
        ("Contact not found", "not_found", 1, 1),
        ("Request timed out after 30s", "timeout", 1, 1),
        ("Destination API unavailable", "other", 1, 1),
        ("null identifier", "validation", 1, 0),
    ])


def test_thrift_server_binds_loopback_only(thrift_server):
    import psutil

    pids = {p.pid for p in thrift_server.processes}
    for proc in list(pids):
        pids |= {child.pid for child in psutil.Process(proc).children(recursive=True)}
    listening = [c for c in psutil.net_connections(kind="inet")
                 if c.status == psutil.CONN_LISTEN and c.pid in pids]
    assert listening, "the thrift server listens on nothing"
    assert {c.laddr.ip.removeprefix("::ffff:") for c in listening} == {"127.0.0.1"}
    assert thrift_server.port in {c.laddr.port for c in listening}
