"""Runs a compiled dbt Python model in the SparkSession that dbt's connection opened."""

import linecache
import traceback
from typing import Any

from dbt.adapters.base import PythonJobHelper
from dbt_common.exceptions import DbtRuntimeError
from pyspark.sql import SparkSession


class SessionPythonJobHelper(PythonJobHelper):
    def __init__(self, parsed_model: dict, credentials: Any) -> None:
        self.model_name = parsed_model["alias"]
        model_path = parsed_model.get("original_file_path") or self.model_name
        self.code_name = f"{model_path} (compiled)"
        self.connect_url = credentials.connect_url()

    def submit(self, compiled_code: str) -> str | None:
        """Runs the model; returns the code its epilogue left in `dbt_submission_code`, if any."""
        # Tracebacks then quote the lines that ran, model code first.
        lines = compiled_code.splitlines(keepends=True)
        linecache.cache[self.code_name] = (len(compiled_code), None, lines, self.code_name)
        # the session of dbt's connection: a Connect client's is found through its URL
        builder = SparkSession.builder.remote(self.connect_url) if self.connect_url else (
            SparkSession.builder
        )
        spark = SparkSession.getActiveSession() or builder.getOrCreate()
        namespace = {"__name__": f"dbt_python_model_{self.model_name}", "spark": spark}
        try:
            exec(compile(compiled_code, self.code_name, "exec"), namespace)
        except Exception as error:
            raise DbtRuntimeError(
                f"Python model {self.model_name} failed:\n{traceback.format_exc()}"
            ) from error
        return namespace.get("dbt_submission_code")
