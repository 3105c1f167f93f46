"""The Spark adapter, able to run dbt Python models in its own SparkSession."""

import os
import signal
import sys
from typing import Any

from dbt.adapters.base import PythonJobHelper, available
from dbt.adapters.contracts.connection import AdapterResponse
from dbt.adapters.spark.impl import SparkAdapter

from dbt.adapters.sparksession.connections import SparkSessionConnectionManager
from dbt.adapters.sparksession.python_submissions import SessionPythonJobHelper


class SparkSessionAdapter(SparkAdapter):
    ConnectionManager = SparkSessionConnectionManager  # type: ignore[assignment]

    @property
    def default_python_submission_method(self) -> str:
        return "session"

    @property
    def python_submission_helpers(self) -> dict[str, type[PythonJobHelper]]:
        return {**super().python_submission_helpers, "session": SessionPythonJobHelper}

    def generate_python_submission_response(self, submission_result: Any) -> AdapterResponse:
        if submission_result == "EMPTY":  # see py_create_temp_view
            return AdapterResponse(_message="OK: no new rows, nothing written", code="EMPTY")
        if submission_result == "UNCHANGED":  # see py_write_table
            return AdapterResponse(_message="OK: unchanged, nothing written", code="UNCHANGED")
        return super().generate_python_submission_response(submission_result)

    @available
    def kill_at_test_point(self, point: str) -> str:
        """Test only (`sync_logs.test_kill_point`): ends this dbt process as a SIGKILL would,
        after a marker line on stderr."""
        marker = f"sync_logs test kill point: {point} (pid {os.getpid()})"
        print(marker, file=sys.stderr, flush=True)
        os.kill(os.getpid(), signal.SIGKILL)
        return ""
