"""`EventLog.read` on a hand-written event log: tasks per executor, failures, and the spans of
top-level SQL executions (a nested execution, such as the insert of a saveAsTable, and an
execution that never ended are not spans of their own)."""

import json

from sync_logs_dev.spark_evidence import EventLog

SQL = "org.apache.spark.sql.execution.ui.SparkListenerSQLExecution"


def test_event_log_reads_tasks_and_top_level_sql_executions(tmp_path):
    events = [
        {"Event": "SparkListenerApplicationStart", "App ID": "app-1", "App Name": "sync_logs"},
        {"Event": "SparkListenerExecutorAdded", "Executor ID": "0",
         "Executor Info": {"Host": "127.0.0.1"}},
        {"Event": SQL + "Start", "executionId": 1, "rootExecutionId": 1, "time": 1000},
        {"Event": SQL + "Start", "executionId": 2, "rootExecutionId": 1, "time": 1100},
        {"Event": "SparkListenerTaskEnd", "Task Info": {"Executor ID": "0", "Failed": False}},
        {"Event": SQL + "End", "executionId": 2, "time": 1400},
        {"Event": SQL + "End", "executionId": 1, "time": 1500},
        {"Event": SQL + "Start", "executionId": 3, "time": 2000},
        {"Event": "SparkListenerTaskEnd", "Task Info": {"Executor ID": "0", "Failed": True}},
        {"Event": SQL + "End", "executionId": 3, "time": 2250},
        {"Event": SQL + "Start", "executionId": 4, "rootExecutionId": 4, "time": 3000},
    ]
    path = tmp_path / "app-1"
    path.write_text("\n".join(json.dumps(e) for e in events) + "\n")

    log = EventLog.read(path)

    assert (log.app_id, log.app_name) == ("app-1", "sync_logs")
    assert log.executors == {"0": "127.0.0.1"}
    assert log.tasks_per_executor == {"0": 2}
    assert log.failed_tasks == 1
    assert log.sql_executions == [(1000, 1500), (2000, 2250)]
