"""`--target local_server`: builds in a Spark Connect server that `python -m
dbt.adapters.sparksession.connect_server` started with the `local` target's settings.

A first build and an idle one through the server; every table equals an embedded (`local`)
build of the same lake, the server holds the warehouse's lock while it runs (an embedded build
of that folder is refused) and gives it back when it stops."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from parquet_tables import read_table

from sync_logs_dev.dbt_invoke import run_dbt
from sync_logs_dev.dbt_subprocess import run_dbt_subprocess
from sync_logs_dev.generator import generate_lake
from sync_logs_dev.services import free_port, port_open

PROJECT_DIR = Path(__file__).resolve().parents[2]
SCHEMA = "connect_build"
LOCAL_SCHEMA = "connect_build_local_reference"
# incidents are open or resolved relative to this time: the same in both builds
DBT_VARS = {"sync_logs_reference_time": "2030-01-01 00:00:00"}
SELECT = ["--select", "package:sync_logs", "--exclude", "resource_type:unit_test"]
# A build's own bookkeeping: its plan (the server's last build was idle), and fingerprints of the
# changelog's load times
BOOKKEEPING = {"int_sync_logs__build_plan", "int_sync_logs__run_fingerprints",
               "sync_logs_incremental_state"}


@pytest.fixture(scope="module")
def lake(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("lake") / "lake"
    generate_lake(root, syncs=3, runs_per_sync=3, records=1500, seed=29, bad_inputs=True)
    return root


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """The Connect server, started as a user starts it: the checkout's profiles.example.yml,
    target `local`, over its own warehouse folder; stopped (with its JVM) at the end."""
    work = tmp_path_factory.mktemp("connect_server")
    profiles = work / "profiles"
    profiles.mkdir()
    (profiles / "profiles.yml").write_text((PROJECT_DIR / "profiles.example.yml").read_text())
    port = free_port()
    env = {**os.environ, "SYNC_LOGS_WAREHOUSE_DIR": str(work / "warehouse"),
           "SYNC_LOGS_SHUFFLE_PARTITIONS": "2", "SYNC_LOGS_DRIVER_MEMORY": "1g"}
    log = (work / "server.log").open("w")
    process = subprocess.Popen(
        [sys.executable, "-m", "dbt.adapters.sparksession.connect_server",
         "--profiles-dir", str(profiles), "--target", "local", "--port", str(port)],
        env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
    )
    deadline = time.monotonic() + 180
    while not port_open(port):
        if process.poll() is not None or time.monotonic() > deadline:
            stop(process)
            pytest.fail(f"the Connect server did not start:\n{(work / 'server.log').read_text()}")
        time.sleep(0.5)
    yield {"port": port, "work": work, "profiles": profiles, "process": process}
    stop(process)


def stop(process: subprocess.Popen) -> None:
    """SIGTERM to the launcher, which stops the server; SIGKILL to what is left after 60 s."""
    process.terminate()
    try:
        process.wait(timeout=60)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)


def server_build(server, lake, step: str):
    return run_dbt_subprocess(
        ["build", *SELECT], target="local_server", work_dir=server["work"] / step,
        profiles=server["profiles"], dbt_vars={**DBT_VARS, "sync_logs_raw_root": str(lake)},
        env={"SYNC_LOGS_SPARK_REMOTE": f"sc://localhost:{server['port']}",
             "SYNC_LOGS_SCHEMA": SCHEMA},
        check=False,
    )


@pytest.fixture(scope="module")
def builds(server, lake, spark, warehouse, tmp_path_factory):
    """A first and an idle build through the server, and the embedded reference (the models
    only, in this process's warm session)."""
    first = server_build(server, lake, "first")
    idle = server_build(server, lake, "idle")
    local_work = tmp_path_factory.mktemp("local_build")
    for command in (["seed", "--select", "package:sync_logs"], ["run", *SELECT]):
        run_dbt(command, target_dir=local_work, env={"SYNC_LOGS_SCHEMA": LOCAL_SCHEMA},
                dbt_vars={**DBT_VARS, "sync_logs_raw_root": str(lake)})
    return {"first": first, "idle": idle, "local": warehouse / f"{LOCAL_SCHEMA}.db"}


def test_builds_succeed_through_the_server(builds):
    for step in ("first", "idle"):
        result = builds[step]
        assert result.returncode == 0, f"{step} build failed:\n{result.tail()}"
        assert "Completed successfully" in result.output
    assert "OK: unchanged, nothing written" in builds["idle"].output


def test_server_tables_equal_embedded_tables(server, builds):
    server_schema = server["work"] / "warehouse" / f"{SCHEMA}.db"
    tables = sorted(p.name for p in builds["local"].iterdir()
                    if p.is_dir() and p.name not in BOOKKEEPING)
    assert {"sync_changelog", "sync_runs", "sync_logs__incidents",
            "sync_logs__field_diffs"} <= set(tables)
    for table in tables:
        ours, reference = read_table(server_schema, table), read_table(builds["local"], table)
        assert ours[0] == reference[0], f"{table}: columns differ"
        assert ours[1] == reference[1], f"{table}: rows differ from the embedded build"
    assert len(read_table(server_schema, "sync_changelog")[1]) > 1000


def test_server_holds_the_warehouse(server, lake, builds):
    embedded = run_dbt_subprocess(
        ["run", "--select", "int_sync_logs__run_manifest"], target="local",
        work_dir=server["work"] / "embedded", profiles=server["profiles"],
        dbt_vars={"sync_logs_raw_root": str(lake), "sync_logs_lock_wait_seconds": 0},
        env={"SYNC_LOGS_WAREHOUSE_DIR": str(server["work"] / "warehouse"),
             "SYNC_LOGS_SCHEMA": SCHEMA},
        check=False,
    )
    assert embedded.returncode != 0
    assert "is in use by another build" in embedded.output
    assert f"pid {server['process'].pid}" in embedded.output


def test_stopping_the_server_frees_the_warehouse(server, builds):
    server["process"].terminate()
    assert server["process"].wait(timeout=60) == 0
    assert not port_open(server["port"])
    assert (server["work"] / "warehouse" / "sync_logs_build.lock").read_text() == ""
    leftovers = subprocess.run(["pgrep", "-f", str(server["work"] / "warehouse")],
                               capture_output=True, text=True).stdout.split()
    assert not leftovers, f"processes of the server still running: {leftovers}"
