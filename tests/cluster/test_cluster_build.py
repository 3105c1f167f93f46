"""`dbt build --target cluster`: the package's models, unchanged, on a Spark standalone cluster
(a master and two workers on loopback), with the tasks executing in the workers' executors."""

from __future__ import annotations

import subprocess
import time

import pytest
from cluster_project import build_project, expected_tables, read_table

from sync_logs.dbt_subprocess import run_dbt_subprocess
from sync_logs.services import free_port, get_json
from sync_logs.spark_evidence import DriverPoller, EventLog, worker_executors

SCHEMA = "cluster_build"


@pytest.fixture(scope="module")
def cluster_build(spark_cluster, tmp_path_factory):
    """One `dbt build --target cluster` in a subprocess, watched through the driver's REST API."""
    work = tmp_path_factory.mktemp("cluster_build")
    project = build_project(work / "project", work / "lake")
    events, ui_port = work / "events", free_port()
    env = {
        **spark_cluster.driver_env(work / "driver-conf", event_log_dir=events, ui_port=ui_port),
        "SYNC_LOGS_WAREHOUSE_DIR": str(work / "warehouse"),
        "SYNC_LOGS_SCHEMA": SCHEMA,
    }
    with DriverPoller(f"http://127.0.0.1:{ui_port}") as poller:
        result = run_dbt_subprocess(
            ["build"], target="cluster", work_dir=work, project_dir=project.dir,
            dbt_vars=project.dbt_vars, env=env, check=False,
        )
    return {"result": result, "work": work, "events": events, "poller": poller,
            "project": project}


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


def test_tables_match_an_independent_expectation(cluster_build):
    warehouse = cluster_build["work"] / "warehouse" / f"{SCHEMA}.db"
    for table, expected in expected_tables(cluster_build["project"]).items():
        assert read_table(warehouse / table) == expected, table


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
