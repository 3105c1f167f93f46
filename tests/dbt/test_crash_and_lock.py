"""Killed builds and concurrent builds on the embedded warehouse (`local` target), each build a
dbt subprocess: crash points through SYNC_LOGS_TEST_KILL_AT (macros/fault_injection/), the lock
of the warehouse folder (dbt/adapters/sparksession/warehouse_lock.py).

One lake (sync 20), one warehouse, two schemas. `crashed` builds the first lake; the lake then
changes (a run reloaded with one more record, a committed run turns invalid, a new run), and
`crashed` is killed once at each point in turn while building it, retention on, before a
normal build. `clean` builds the changed lake once, started together with the first killed
build. Every table of `crashed` must then equal `clean`'s: nothing lost, nothing twice, the
retention-pruned history included. (The clean build also shows that the on-run-end prune runs
in mode package: it failed with "unable to infer all dependencies".)

Seven builds, each a JVM: about 7.5 minutes on a loaded 2-core machine."""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import threading
import time
from pathlib import Path

import pyarrow.dataset as ds
import pytest
from build_comparison import BUILD_TIME_COLUMNS

from dbt.adapters.sparksession.warehouse_lock import WarehouseLock
from handmade_lake import at, run_dir, upsert, write_run
from sync_logs.spark import SMALL_DATA_JAVA_OPTIONS
from sync_logs_dev.dbt_subprocess import DbtRun, run_dbt_subprocess

SYNC = 20
RECORDS = "records_updated.0.parquet"
# Retention on in the changed lake's builds: the horizon (2026-10-03) falls after runs 1 and 2.
RETENTION = {
    "sync_logs_prune_on_run": True,
    "sync_logs_retention_days": 1,
    "sync_logs_retention_as_of": "2026-10-04 00:00:00",
}
# In build order: sync_changelog's new partitions written, its cleared ones not yet dropped;
# the first clear of the build done (sync_changelog's), later tables' not; sync_runs not yet
# written (the load uncommitted); the on-run-end prune has rewritten the partitions that keep
# rows, not yet dropped those left without any.
KILL_POINTS = ["sync_changelog_written", "partitions_cleared", "before_sync_runs",
               "retention_rewritten"]
# A table of the build's own plan, which says what that build did (not data).
NOT_COMPARED = {"int_sync_logs__build_plan"}
KILLED = re.compile(r"sync_logs test kill point: (\w+) \(pid (\d+)\)")
TOOK_OVER = re.compile(r"took over the lock of warehouse .* from a build that ended without "
                       r"releasing it \(pid (\d+) on host ")
WAITING = re.compile(r"is in use by another build \(pid (\d+) on host ")


DAY = 24 * 60


def first_lake(lake: Path) -> None:
    """Runs 1 to 4 on 2026-10-01 (before the retention horizon), 5 and 6 on 2026-10-03. The
    prune deletes a2 and b2 of run 2 (f1 stays: added there) and c2, all of run 3."""
    batches = {
        1: (0, [upsert("a", 1, 1), upsert("b", 1, 1), upsert("c", 1, 1)]),
        2: (60, [upsert("a", 2, 61), upsert("b", 2, 61), upsert("f", 1, 61)]),
        3: (120, [upsert("c", 2, 121)]),
        4: (180, [upsert("a", 3, 181), upsert("b", 3, 181), upsert("c", 3, 181)]),
        5: (2 * DAY, [upsert("a", 4, 2 * DAY + 1), upsert("b", 4, 2 * DAY + 1)]),
        6: (2 * DAY + 60, [upsert("c", 4, 2 * DAY + 61)]),
    }
    for run, (minute, rows) in batches.items():
        write_run(lake, 1, SYNC, run, at(minute), {RECORDS: rows})


def change_lake(lake: Path) -> None:
    """Run 5 reloaded with one more record; run 6's metadata.json no longer JSON; new run 7."""
    write_run(lake, 1, SYNC, 5, at(2 * DAY), {RECORDS: [
        upsert("a", 4, 2 * DAY + 1), upsert("b", 4, 2 * DAY + 1), upsert("d", 1, 2 * DAY + 1),
    ]})
    (run_dir(lake, 1, SYNC, 6) / "metadata.json").write_text("{not json", encoding="utf-8")
    write_run(lake, 1, SYNC, 7, at(2 * DAY + 120), {RECORDS: [upsert("b", 5, 2 * DAY + 121)]})


class Builds:
    def __init__(self, base: Path) -> None:
        self.base, self.lake, self.warehouse = base, base / "lake", base / "warehouse"
        self.count = 0

    def dbt(self, schema: str, kill_at: str = "", dbt_vars: dict | None = None,
            args: tuple[str, ...] = ("run", "--select", "path:models/canonical")) -> DbtRun:
        self.count += 1
        return run_dbt_subprocess(
            list(args), target="local", work_dir=self.base / f"{schema}-{self.count}",
            dbt_vars={"sync_logs_raw_root": str(self.lake), **(dbt_vars or {})}, check=False,
            timeout=600,
            env={
                "SYNC_LOGS_WAREHOUSE_DIR": str(self.warehouse), "SYNC_LOGS_SCHEMA": schema,
                "SYNC_LOGS_TEST_KILL_AT": kill_at, "SYNC_LOGS_SPARK_ADAPTIVE": "false",
                "SYNC_LOGS_SHUFFLE_PARTITIONS": "1", "SYNC_LOGS_DRIVER_MEMORY": "1g",
                "JAVA_TOOL_OPTIONS": SMALL_DATA_JAVA_OPTIONS,
            },
        )


def together(*calls) -> list[DbtRun]:
    """Starts the calls at once, each in a thread; their results in order."""
    results: list = [None] * len(calls)

    def run(index, call):
        results[index] = call()

    threads = [threading.Thread(target=run, args=item) for item in enumerate(calls)]
    for thread in threads:
        thread.start()
        time.sleep(0.2)
    for thread in threads:
        thread.join()
    return results


@pytest.fixture(scope="module")
def scenario(tmp_path_factory):
    builds = Builds(tmp_path_factory.mktemp("crash_and_lock"))
    first_lake(builds.lake)
    first = builds.dbt("crashed")
    assert first.returncode == 0, first.tail()
    change_lake(builds.lake)
    killed, clean = together(
        lambda: builds.dbt("crashed", KILL_POINTS[0], RETENTION),
        lambda: builds.dbt("clean", "", RETENTION),
    )
    runs = {KILL_POINTS[0]: killed}
    for point in KILL_POINTS[1:]:
        runs[point] = builds.dbt("crashed", point, RETENTION)
    final = builds.dbt("crashed", "", RETENTION)
    yield {"builds": builds, "killed": runs, "clean": clean, "final": final}
    shutil.rmtree(builds.base, ignore_errors=True)


def test_clean_build_and_the_build_after_the_kills_succeed(scenario):
    assert scenario["clean"].returncode == 0, scenario["clean"].tail()
    assert scenario["final"].returncode == 0, scenario["final"].tail()
    # the prune had work to do: runs 2 and 3 lose rows, run 3 all of them
    summary = "sync 20: deleted 3 rows in 2 runs (1 runs left without rows)"
    assert summary in scenario["clean"].output


@pytest.mark.parametrize("point", KILL_POINTS)
def test_each_build_died_by_sigkill_at_its_point(scenario, point):
    run = scenario["killed"][point]
    assert run.returncode == -signal.SIGKILL, run.tail()
    assert [name for name, _ in KILLED.findall(run.output)] == [point], run.tail()


def test_the_build_started_with_another_waited_for_its_lock(scenario):
    """The first killed build and the clean one started together: one waited, naming the
    other; neither met Derby's "Failed to start database"."""
    killed, clean = scenario["killed"][KILL_POINTS[0]], scenario["clean"]
    killed_pid = int(KILLED.search(killed.output)[2])
    waits = [(run, WAITING.search(run.output)) for run in (killed, clean)]
    waited = [(run, found) for run, found in waits if found]
    assert len(waited) == 1, [run.tail(20) for run in (killed, clean)]
    run, found = waited[0]
    if run is clean:  # it waited for the killed build, then took its lock over
        assert int(found[1]) == killed_pid
        assert int(TOOK_OVER.search(clean.output)[1]) == killed_pid
    for run in (killed, clean):
        assert "Failed to start database" not in run.output


@pytest.mark.parametrize("point", [*KILL_POINTS[2:], "final"])
def test_a_build_after_a_killed_one_takes_its_lock_over(scenario, point):
    """The builds killed at the points before this one left a stale lock; this build says whose
    lock it took over (the JVM of the killed build held Derby until it ended)."""
    runs = [*scenario["killed"].values(), scenario["final"]]
    index = [*KILL_POINTS, "final"].index(point)
    before, run = runs[index - 1], runs[index]
    assert int(TOOK_OVER.search(run.output)[1]) == int(KILLED.search(before.output)[2])


def table_names(builds: Builds, schema: str) -> set[str]:
    return {path.name for path in (builds.warehouse / f"{schema}.db").iterdir() if path.is_dir()}


def table_rows(builds: Builds, schema: str, table: str) -> list[tuple]:
    """Every row of a table, read from its parquet files (partition columns from the folder
    names), without the build-time columns, the lake's folder written as LAKE."""
    frame = ds.dataset(builds.warehouse / f"{schema}.db" / table, format="parquet",
                       partitioning="hive").to_table()
    columns = sorted(name for name in frame.column_names if name not in BUILD_TIME_COLUMNS)
    lake = str(builds.lake)

    def plain(value):
        return value.replace(lake, "LAKE") if isinstance(value, str) else value

    return sorted(
        (tuple(plain(row[name]) for name in columns) for row in frame.select(columns).to_pylist()),
        key=repr,
    )


def test_the_same_tables_and_no_working_table_left(scenario):
    builds = scenario["builds"]
    assert table_names(builds, "crashed") == table_names(builds, "clean")
    assert "sync_changelog" in table_names(builds, "clean")


@pytest.mark.parametrize("table", ["sync_changelog", "int_sync_logs__snapshot", "sync_runs",
                                   "int_sync_logs__run_manifest", "int_sync_logs__objects"])
def test_every_table_equals_the_clean_build(scenario, table):
    builds = scenario["builds"]
    clean = table_rows(builds, "clean", table)
    assert clean
    assert table_rows(builds, "crashed", table) == clean


def test_a_second_build_fails_at_once_naming_the_holder(scenario):
    """sync_logs_lock_wait_seconds 0: the build ends before its JVM starts, naming the holder."""
    builds = scenario["builds"]
    holder = WarehouseLock(builds.warehouse)
    holder.acquire(0, "invocation-of-the-holder")
    try:
        started = time.monotonic()
        run = builds.dbt("clean", "", {"sync_logs_lock_wait_seconds": 0})
        seconds = time.monotonic() - started
    finally:
        holder.release()
    assert run.returncode != 0
    assert (f"is in use by another build (pid {os.getpid()} on host {socket.gethostname()}, "
            f"started at {holder.holder['started_at']}, dbt invocation invocation-of-the-holder)"
            ) in run.output, run.tail()
    assert "gave up at once" in run.output
    assert "Failed to start database" not in run.output
    assert seconds < 60
