"""Where a Spark application's tasks ran, read from what Spark itself publishes: the driver's
REST API while it runs, its event log afterwards, and the standalone workers' status JSON."""

from __future__ import annotations

import json
import threading
import urllib.error
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from sync_logs_dev.services import get_json


@dataclass
class EventLog:
    """The parts of one application's event log (spark.eventLog.compress=false) we check."""

    app_id: str
    app_name: str
    executors: dict[str, str]  # executor id -> host, for executors added during the run
    tasks_per_executor: Counter
    failed_tasks: int
    # (start, end) in epoch ms of each top-level SQL execution (nested ones, such as the
    # insert inside a saveAsTable, are part of their root's span)
    sql_executions: list[tuple[int, int]] = field(default_factory=list)

    @classmethod
    def read(cls, path: Path) -> EventLog:
        app_id = app_name = ""
        executors: dict[str, str] = {}
        tasks: Counter = Counter()
        failed = 0
        started: dict[int, int] = {}  # top-level SQL execution id -> start
        sql_executions = []
        with open(path) as events:
            for line in events:
                event = json.loads(line)
                kind = event.get("Event", "")
                if kind == "SparkListenerApplicationStart":
                    app_id, app_name = event.get("App ID", ""), event.get("App Name", "")
                elif kind == "SparkListenerExecutorAdded":
                    executors[event["Executor ID"]] = event["Executor Info"]["Host"]
                elif kind == "SparkListenerTaskEnd":
                    info = event["Task Info"]
                    tasks[info["Executor ID"]] += 1
                    failed += bool(info.get("Failed"))
                elif kind.endswith("SQLExecutionStart"):
                    execution = event["executionId"]
                    if event.get("rootExecutionId", execution) == execution:
                        started[execution] = event["time"]
                elif kind.endswith("SQLExecutionEnd") and event["executionId"] in started:
                    sql_executions.append((started.pop(event["executionId"]), event["time"]))
        return cls(app_id, app_name, executors, tasks, failed, sorted(sql_executions))

    @classmethod
    def in_folder(cls, folder: Path) -> list[EventLog]:
        """Every finished application's log in `folder` (in-progress ones are skipped)."""
        return [
            cls.read(path) for path in sorted(folder.iterdir())
            if path.is_file() and not path.name.endswith(".inprogress")
            and not path.name.startswith(".")
        ]


def worker_executors(worker_ui: str, app_id: str) -> list[str]:
    """Ids of the executors a standalone worker ran (or runs) for `app_id`."""
    status = get_json(f"{worker_ui}/json/")
    return [
        str(executor["id"])
        for executor in status.get("executors", []) + status.get("finishedexecutors", [])
        if executor.get("appid") == app_id
    ]


@dataclass
class DriverPoller:
    """Polls the driver's REST API (/api/v1/applications/<id>/executors) in a thread while an
    application runs, keeping the highest totalTasks seen per executor id."""

    ui_url: str
    interval: float = 0.5
    app_ids: set[str] = field(default_factory=set)
    max_tasks: dict[str, int] = field(default_factory=dict)
    snapshots: int = 0
    _stop: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None

    def _poll_once(self) -> None:
        for app in get_json(f"{self.ui_url}/api/v1/applications", timeout=2):
            self.app_ids.add(app["id"])
            executors = get_json(
                f"{self.ui_url}/api/v1/applications/{app['id']}/executors", timeout=2
            )
            for executor in executors:
                key = str(executor["id"])
                self.max_tasks[key] = max(self.max_tasks.get(key, 0), executor["totalTasks"])
            self.snapshots += 1

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            try:
                self._poll_once()
            except (OSError, urllib.error.URLError, ValueError, KeyError):
                pass  # the driver is not up yet, or already gone

    def __enter__(self) -> DriverPoller:
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=10)
