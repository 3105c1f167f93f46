"""`dbt build --target cluster`: the package's models, unchanged, on a Spark standalone cluster
(a master and two workers on loopback), with the tasks executing in the workers' executors.

The lake root is given as a file:// URI; the canonical tables must equal those of an embedded
(`local`) build that reads the same lake through its plain path."""

from __future__ import annotations

import subprocess
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from parquet_tables import read_table

from sync_logs_dev.dbt_invoke import run_dbt
from sync_logs_dev.dbt_subprocess import run_dbt_subprocess
from sync_logs_dev.generator import generate_lake
from sync_logs_dev.services import free_port, get_json
from sync_logs_dev.spark_evidence import DriverPoller, EventLog, worker_executors

SCHEMA = "cluster_build"
LOCAL_SCHEMA = "cluster_build_local_reference"


@pytest.fixture(scope="module")
def lake(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("lake") / "lake"
    generate_lake(root, syncs=3, runs_per_sync=3, records=1500, seed=23, bad_inputs=True)
    return root


def local_reference_build(lake: Path, work: Path) -> None:
    """The canonical models on the embedded `local` target, the lake given as a plain path:
    in this process, on the worker's SparkSession (already started and warm)."""
    run_dbt(["run", "--select", "tag:sync_logs_canonical"], target_dir=work,
            dbt_vars={"sync_logs_raw_root": str(lake)}, env={"SYNC_LOGS_SCHEMA": LOCAL_SCHEMA})


@pytest.fixture(scope="module")
def cluster_build(spark_cluster, lake, spark, warehouse, tmp_path_factory):
    """One `dbt build --target cluster` in a subprocess, watched through the driver's REST API,
    while the local reference build runs in this process (the two share nothing: their own
    warehouse folders and metastores)."""
    work = tmp_path_factory.mktemp("cluster_build")
    local_work = tmp_path_factory.mktemp("local_build")
    events, ui_port = work / "events", free_port()
    env = {
        **spark_cluster.driver_env(work / "driver-conf", event_log_dir=events, ui_port=ui_port),
        "SYNC_LOGS_WAREHOUSE_DIR": str(work / "warehouse"),
        "SYNC_LOGS_SCHEMA": SCHEMA,
        # a lake of 4,500 records: 2 tasks a shuffle, not the target's 8
        "SYNC_LOGS_SHUFFLE_PARTITIONS": "2",
    }
    with ThreadPoolExecutor(max_workers=1) as pool:
        local = pool.submit(local_reference_build, lake, local_work)
        with DriverPoller(f"http://127.0.0.1:{ui_port}") as poller:
            result = run_dbt_subprocess(
                # the unit tests run in tests/dbt/test_marts_engines, on Spark too
                ["build", "--exclude", "resource_type:unit_test"],
                target="cluster", work_dir=work,
                dbt_vars={"sync_logs_raw_root": lake.as_uri(), "sync_logs_all_data_tests": True},
                env=env, check=False,
            )
        local.exception()  # wait; the failure, if any, is raised by `local_build`
    return {"result": result, "work": work, "events": events, "poller": poller,
            "local": local, "local_warehouse": warehouse}


@pytest.fixture(scope="module")
def local_build(cluster_build):
    """The worker's warehouse folder, which holds the local reference's tables."""
    cluster_build["local"].result()  # raises if the reference build failed
    return cluster_build["local_warehouse"]


def test_build_succeeds(cluster_build):
    result = cluster_build["result"]
    assert result.returncode == 0, f"dbt build --target cluster failed:\n{result.tail()}"
    assert "Completed successfully" in result.output


def test_tasks_ran_in_both_workers(spark_cluster, cluster_build):
    """The event log, the workers' status and the master's status agree: one application,
    executors on both workers, and every executor that ran tasks is a worker's executor."""
    logs = EventLog.in_folder(cluster_build["events"])
    assert len(logs) == 1, f"expected one application, found {[g.app_id for g in logs]}"
    log = logs[0]
    assert log.app_name == "sync_logs"
    assert log.failed_tasks == 0
    assert "driver" not in log.tasks_per_executor, "tasks ran in the driver, not the cluster"

    per_worker = {
        index: worker_executors(spark_cluster.worker_ui(index), log.app_id)
        for index in range(spark_cluster.workers)
    }
    for index, executor_ids in per_worker.items():
        assert executor_ids, f"worker {index + 1} ran no executor for {log.app_id}"
        tasks = sum(log.tasks_per_executor[e] for e in executor_ids)
        assert tasks > 0, f"worker {index + 1}'s executors {executor_ids} ran no task"
    worker_ids = {e for ids in per_worker.values() for e in ids}
    assert set(log.tasks_per_executor) <= worker_ids
    assert sum(log.tasks_per_executor.values()) > 0

    master = spark_cluster.master_status()
    apps = {app["id"]: app for app in master["completedapps"]}
    assert log.app_id in apps and apps[log.app_id]["state"] == "FINISHED"


def test_driver_rest_api_saw_tasks_in_executors(cluster_build):
    """While dbt ran, the driver's /api/v1/applications/<id>/executors listed two non-driver
    executors with totalTasks > 0."""
    poller = cluster_build["poller"]
    assert poller.snapshots > 0, "the driver's REST API never answered during the build"
    executors = {k: v for k, v in poller.max_tasks.items() if k != "driver"}
    assert len(executors) == 2, f"expected 2 executors, saw {poller.max_tasks}"
    assert all(tasks > 0 for tasks in executors.values()), poller.max_tasks


def test_file_uri_cluster_tables_equal_plain_path_local_tables(cluster_build, local_build):
    """Every table the canonical models wrote (views are SQL over these) holds the same rows."""
    assert cluster_build["result"].returncode == 0, "the cluster build failed"
    local_schema = local_build / f"{LOCAL_SCHEMA}.db"
    cluster_schema = cluster_build["work"] / "warehouse" / f"{SCHEMA}.db"
    tables = sorted(p.name for p in local_schema.iterdir() if p.is_dir())
    assert {"sync_changelog", "sync_runs", "int_sync_logs__run_manifest"} <= set(tables)
    for table in tables:
        cluster = read_table(cluster_schema, table)
        local = read_table(local_schema, table)
        assert cluster[0] == local[0], f"{table}: columns differ"
        assert cluster[1] == local[1], f"{table}: rows differ between cluster and local"
    changelog = read_table(local_schema, "sync_changelog")[1]
    assert len(changelog) > 1000, "the generated lake should give a real changelog"


def test_cluster_stops_cleanly(spark_cluster):
    """Stopping ends every process we started (and their executors)."""
    processes = list(spark_cluster.processes)
    assert processes and all(p.alive() for p in processes)
    spark_cluster.stop()
    deadline = time.monotonic() + 5
    while any(p.alive() for p in processes) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not any(p.alive() for p in processes)
    with pytest.raises(OSError):
        get_json(f"{spark_cluster.master_ui}/json/", timeout=2)
    leftovers = subprocess.run(
        ["pgrep", "-f", str(spark_cluster.state_dir)], capture_output=True, text=True
    ).stdout.split()
    assert not leftovers, f"processes still running from {spark_cluster.state_dir}: {leftovers}"
