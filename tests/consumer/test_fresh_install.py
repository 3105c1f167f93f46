"""The README's install path, as a new user takes it: a fresh virtualenv, the README's command
`pip install -c constraints.txt '.[session]'` in the checkout (no development extras), a new dbt
project whose packages.yml points at the checkout and whose profile is a small `sparksession`
target, then `dbt deps` and `dbt build` (of the package's canonical folder) with that
virtualenv's own `dbt`, in its own process and JVM.

It proves that the `session` extra declares what the models need at run time (the mapInArrow
models need PySpark's Arrow path: pandas, pyarrow, numpy), which the other dbt tests cannot:
they run in the development virtualenv; that the user's install holds what users run and none
of the repository's tooling (python/dev, `sync_logs_dev`); and that the wheel without an extra,
as a Spark cluster installs it, brings no dependency. The lake is hand-made below and the
expected rows are written out next to it.

Costly by nature (an install and a Spark build in a new process), so one install and one build
for the module. pip uses its usual cache; when it cannot reach the package index the test
fails, it does not skip."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pytest
import yaml
from consumer_harness import REPO, isolated_env

from handmade_lake import at, payload, rec, write_facts, write_run
from sync_logs.spark import SMALL_DATA_JAVA_OPTIONS, SMALL_DATA_SETTINGS

# The README's command, run in the checkout (README, "Use it in your dbt project").
README_INSTALL = ["pip", "install", "-c", "constraints.txt", ".[session]"]
SCHEMA = "fresh"
TIMEOUT = 900  # seconds per command: a hang fails the test instead of blocking CI
NAMED = pa.schema([("id", pa.int64()), ("type", pa.string()), ("name", pa.string())])


def run(command: list[str], cwd: Path, env: dict[str, str]) -> str:
    """Run a command to completion; fail the test with its output's tail when it fails."""
    done = subprocess.run(
        command, cwd=cwd, env=env, capture_output=True, text=True, timeout=TIMEOUT
    )
    output = done.stdout + done.stderr
    assert done.returncode == 0, f"{' '.join(command)} exited {done.returncode}:\n{output[-8000:]}"
    return done.stdout


def clean_env(venv: Path) -> dict[str, str]:
    """The environment without the development virtualenv's leaks (`isolated_env`), the fresh
    virtualenv's bin first on PATH, as after `activate`."""
    env = isolated_env()
    dev_bin = str(Path(sys.executable).parent)
    path = [p for p in env.get("PATH", "").split(os.pathsep) if p and p != dev_bin]
    env["PATH"] = os.pathsep.join([str(venv / "bin"), *path])
    env["VIRTUAL_ENV"] = str(venv)
    env["DBT_SEND_ANONYMOUS_USAGE_STATS"] = "false"  # no network but the package index
    return env


def copy_checkout(dest: Path) -> Path:
    """The files of this checkout that git sees (tracked, and new ones not ignored), so that
    nothing built here (.venv, build/, target/) goes in and nothing is built into the repo."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=REPO, capture_output=True, text=True, check=True,
    ).stdout
    for name in filter(None, listed.split("\0")):
        source = REPO / name
        if source.is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, dest / name)
    return dest


@pytest.fixture(scope="module")
def checkout_copy(tmp_path_factory) -> Path:
    return copy_checkout(tmp_path_factory.mktemp("fresh_install") / "sync_logs")


@pytest.fixture(scope="module")
def fresh_venv(checkout_copy) -> tuple[Path, Path]:
    """(checkout, virtualenv): the checkout installed the README's way into a new virtualenv."""
    checkout = checkout_copy
    venv = checkout.parent / "venv"
    # The virtualenv of the interpreter behind this one (a venv made from a venv is based on
    # the base interpreter, and sees none of the development packages).
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=TIMEOUT)
    env = clean_env(venv)
    run([str(venv / "bin" / README_INSTALL[0]), *README_INSTALL[1:]], checkout, env)
    return checkout, venv


def write_lake(lake: Path) -> None:
    """Sync 10 (mirror), two runs. Run 100 adds u1 and u3 and fails u2; run 101 changes u1,
    adds u2 (its earlier attempt failed) and removes u3. Payloads carry a `phone` field that
    the project's vars drop (the mapInArrow payload rewrite). One destination fact file (the
    mapInArrow fact reader)."""
    write_run(lake, 1, 10, 100, at(0), {
        "records_updated.0.parquet": [
            rec("u1", payload(email="u1@x", phone="555"), started=at(1), ended=at(2)),
            rec("u2", payload(email="bad"), status="rejected", status_message="invalid email",
                started=at(1), ended=at(2)),
            rec("u3", payload(email="u3@x"), started=at(1), ended=at(2)),
        ],
    })
    write_run(lake, 1, 10, 101, at(60), {
        "records_updated.0.parquet": [
            rec("u1", payload(email="u1@y", phone="556"), started=at(61), ended=at(62)),
            rec("u2", payload(email="u2@x"), started=at(61), ended=at(62)),
        ],
        "records_deleted.0.parquet": [
            rec("u3", payload(email="u3@x"), operation="delete", started=at(63), ended=at(64)),
        ],
    })
    write_facts(lake, 1, "destinations",
                [{"id": 8, "type": "Salesforce::Connection", "name": "SF prod"}], NAMED)


def write_project(project: Path, checkout: Path, lake: Path, warehouse: Path) -> None:
    """A new dbt project: packages.yml pointing at the checkout, a small sparksession profile
    (one 1 GiB JVM, as profiles.example.yml's `local` target but smaller, and sized for a lake
    of a few rows as the test session is: sync_logs.spark's SMALL_DATA settings)."""
    project.mkdir(parents=True)
    files = {
        "packages.yml": {"packages": [{"local": str(checkout)}]},
        "dbt_project.yml": {
            "name": "my_syncs",
            "version": "1.0.0",
            "config-version": 2,
            "profile": "my_syncs",
            "vars": {
                "sync_logs_raw_root": str(lake),
                "sync_logs": {"sync_logs_payload_fields_to_drop": ["phone"]},
            },
            # The package's own data and unit tests run in its CI (README).
            "data_tests": {"sync_logs": {"+enabled": False}},
            "unit_tests": {"sync_logs": {"+enabled": False}},
        },
        "profiles.yml": {"my_syncs": {"target": "dev", "outputs": {"dev": {
            "type": "sparksession",
            "schema": SCHEMA,
            "threads": 2,
            "server_side_parameters": {
                "spark.master": "local[2]",
                "spark.driver.memory": "1g",
                "spark.sql.catalogImplementation": "hive",
                "spark.sql.warehouse.dir": str(warehouse),
                "spark.hadoop.javax.jdo.option.ConnectionURL":
                    "jdbc:derby:;databaseName=metastore_db;create=true",
                "spark.driver.extraJavaOptions":
                    f"-Dderby.system.home={warehouse} {SMALL_DATA_JAVA_OPTIONS}",
                **SMALL_DATA_SETTINGS,
                "spark.sql.shuffle.partitions": "2",
                "spark.sql.session.timeZone": "UTC",
                "spark.ui.enabled": "false",
                "spark.ui.showConsoleProgress": "false",
            },
        }}}},
    }
    for name, content in files.items():
        (project / name).write_text(yaml.safe_dump(content, sort_keys=False))


# Read back with the fresh virtualenv's own PySpark, through the build's metastore.
QUERY_SCRIPT = """
import json, sys
from pathlib import Path
from sync_logs.spark import local_session

spark = local_session(Path(sys.argv[1]), driver_memory="1g", shuffle_partitions=2,
                      small_data=True)
queries = json.loads(sys.argv[2])
print(json.dumps({name: [row.asDict() for row in spark.sql(sql).collect()]
                  for name, sql in queries.items()}, default=str))
"""
QUERIES = {
    "changelog": f"select sync_run_id, row_id, op_type, status, failed_reason, fields"
                 f" from {SCHEMA}.sync_changelog",
    "snapshot": f"select sync_run_id, row_id, op_type, status, fields from {SCHEMA}.sync_snapshot",
    "runs": f"select * from {SCHEMA}.sync_runs",
    "destinations": f"select id, type, name from {SCHEMA}.destinations",
    "quarantine": f"select * from {SCHEMA}.sync_logs_quarantine",
}


@pytest.fixture(scope="module")
def fresh_build(fresh_venv, tmp_path_factory) -> dict[str, list[dict]]:
    checkout, venv = fresh_venv
    base = tmp_path_factory.mktemp("fresh_build")
    lake, project, warehouse = base / "lake", base / "project", base / "warehouse"
    write_lake(lake)
    write_project(project, checkout, lake, warehouse)
    env = clean_env(venv)
    dbt = str(venv / "bin" / "dbt")
    run([dbt, "deps", "--profiles-dir", str(project)], project, env)
    # The canonical folder: every Python model (what the install must serve), and the views
    # over them. The SQL marts need nothing from the Python environment; they are built in
    # tests/consumer (the development virtualenv), which saves a minute of CI here.
    run([dbt, "build", "--select", "sync_logs.canonical", "--profiles-dir", str(project)],
        project, env)
    out = run([str(venv / "bin" / "python"), "-c", QUERY_SCRIPT, str(warehouse),
               json.dumps(QUERIES)], project, env)
    return json.loads(out.strip().splitlines()[-1])


def by(rows: list[dict], *keys: str) -> list[tuple]:
    return sorted(tuple(row[k] for k in keys) for row in rows)


def test_readme_shows_the_install_command_this_test_runs():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert f"cd path/to/sync_logs && {shlex.join(README_INSTALL)}\n" in readme


def test_wheel_without_an_extra_brings_no_dependency(checkout_copy):
    """The wheel as a Spark cluster installs it (docs/databricks.md): pip would add nothing
    beside it, no second PySpark, no dbt, no pyarrow upgrade. A dry run of pip's resolver in a
    new environment (`--ignore-installed`), read from its JSON report."""
    report = run([
        sys.executable, "-m", "pip", "install", "--dry-run", "--ignore-installed", "--quiet",
        "--report", "-", "-c", "constraints.txt", ".",
    ], checkout_copy, isolated_env())
    names = {item["metadata"]["name"] for item in json.loads(report)["install"]}
    assert names == {"sync-logs"}


def test_readme_install_has_no_development_extras_and_checks(fresh_venv):
    _, venv = fresh_venv
    env = clean_env(venv)
    python = str(venv / "bin" / "python")
    run([python, "-m", "pip", "check"], venv, env)
    found = run([python, "-c", (
        "import importlib.util as u, json;"
        "print(json.dumps({m: u.find_spec(m) is not None"
        " for m in ['pandas', 'pyarrow', 'numpy', 'pyspark', 'pytest', 'duckdb']}))"
    )], venv, env)
    # The run-time needs are installed; the development extras are not.
    assert json.loads(found) == {
        "pandas": True, "pyarrow": True, "numpy": True, "pyspark": True,
        "pytest": False, "duckdb": False,
    }


# The repository's tooling, which lives in python/dev (sync_logs_dev) and was once in sync_logs.
TOOLING_MODULES = [
    "sync_logs_dev", "sync_logs.generator", "sync_logs.generator_bad",
    "sync_logs.generator_catalog", "sync_logs.generator_files", "sync_logs.generator_increment",
    "sync_logs.generator_payload", "sync_logs.generator_sync", "sync_logs.demo",
    "sync_logs.services", "sync_logs.spark_evidence", "sync_logs.dbt_invoke",
    "sync_logs.dbt_subprocess", "sync_logs.dbt_parse_cache", "sync_logs.checkout",
    "sync_logs.databricks_offline",
]


def test_readme_install_has_no_tooling(fresh_venv):
    _, venv = fresh_venv
    env = clean_env(venv)
    found = run([str(venv / "bin" / "python"), "-c", (
        "import importlib.util as u, json, sys;"
        "print(json.dumps({m: u.find_spec(m) is not None for m in sys.argv[1:]}))"
    ), *TOOLING_MODULES], venv, env)
    assert json.loads(found) == {module: False for module in TOOLING_MODULES}
    assert sorted(p.name for p in (venv / "bin").glob("sync-logs*")) == ["sync-logs"]


def test_readme_install_holds_the_users_files_only(fresh_venv):
    """The installed files as the wheel listed them (its RECORD), our own only: the package's
    modules and data, without the compiled files and the scripts that pip adds."""
    _, venv = fresh_venv
    env = clean_env(venv)
    listed = run([str(venv / "bin" / "python"), "-c", (
        "import importlib.metadata as m, json;"
        "print(json.dumps([str(f) for f in m.files('sync-logs')]))"
    )], venv, env)
    files = {
        name for name in json.loads(listed)
        if not name.startswith("..") and "__pycache__" not in name and ".dist-info/" not in name
    }
    assert {name.split("/")[0] for name in files} == {"sync_logs", "dbt"}
    assert {name for name in files if name.count("/") == 1 and name.startswith("sync_logs/")} == {
        "sync_logs/__init__.py", "sync_logs/cli.py", "sync_logs/export_csv.py",
        "sync_logs/notify.py", "sync_logs/report.py", "sync_logs/report_page.py",
        "sync_logs/spark.py", "sync_logs/warehouse.py",
    }
    assert {name.split("/")[1] for name in files if name.count("/") > 1 and
            name.startswith("sync_logs/")} == {"canonical"}
    assert {"/".join(name.split("/")[:3]) for name in files if name.startswith("dbt/")} == {
        "dbt/adapters/sparksession", "dbt/include/sparksession",
    }
    assert "dbt/include/sparksession/macros/materializations/incremental.sql" in files


def test_readme_install_builds_the_changelog(fresh_build):
    rows = [{**r, "fields": json.loads(r["fields"])} for r in fresh_build["changelog"]]
    assert by(rows, "sync_run_id", "row_id", "op_type", "status", "failed_reason") == [
        (100, "u1", "added", "succeeded", None),
        (100, "u2", "added", "failed", "invalid email"),
        (100, "u3", "added", "succeeded", None),
        (101, "u1", "changed", "succeeded", None),
        (101, "u2", "added", "succeeded", None),
        (101, "u3", "removed", "succeeded", None),
    ]
    # `phone` dropped by the project's var, in the rows that had it.
    fields = {(r["sync_run_id"], r["row_id"]): r["fields"] for r in rows}
    assert fields == {
        (100, "u1"): {"email": "u1@x"},
        (100, "u2"): {"email": "bad"},
        (100, "u3"): {"email": "u3@x"},
        (101, "u1"): {"email": "u1@y"},
        (101, "u2"): {"email": "u2@x"},
        (101, "u3"): {"email": "u3@x"},
    }


def test_readme_install_builds_snapshot_runs_and_facts(fresh_build):
    # u3 was removed successfully, so it is absent.
    assert by(fresh_build["snapshot"], "sync_run_id", "row_id", "op_type", "status") == [
        (101, "u1", "changed", "succeeded"),
        (101, "u2", "added", "succeeded"),
    ]
    counters = (
        "sync_run_id", "num_planned_add", "num_planned_change", "num_planned_remove",
        "num_succeeded_add", "num_succeeded_change", "num_succeeded_remove",
        "num_failed_add", "num_invalid", "num_records",
    )
    assert by(fresh_build["runs"], *counters) == [
        (100, 3, 0, 0, 2, 0, 0, 1, 0, 3),
        (101, 1, 1, 1, 1, 1, 1, 0, 0, 3),
    ]
    assert by(fresh_build["destinations"], "id", "type", "name") == [
        (8, "Salesforce::Connection", "SF prod"),
    ]
    assert fresh_build["quarantine"] == []
