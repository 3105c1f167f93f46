"""Credentials and connections: dbt-spark's, with `session` as the default method."""

import os
import sys
from dataclasses import dataclass
from typing import Any

from dbt.adapters.contracts.connection import Connection
from dbt.adapters.spark.connections import SparkConnectionManager, SparkCredentials
from pyspark import SparkContext

ADAPTER_TYPE = "sparksession"

# Python workers (mapInArrow, UDFs) run the interpreter that runs dbt, so they see its packages.
# Where workers live elsewhere (a cluster of other machines), set PYSPARK_PYTHON for them.
os.environ.setdefault("PYSPARK_PYTHON", sys.executable)


@dataclass
class SparkSessionCredentials(SparkCredentials):
    @classmethod
    def __pre_deserialize__(cls, data: Any) -> Any:
        data = super().__pre_deserialize__(data)
        data.setdefault("method", "session")
        data.setdefault("host", "localhost")
        return data

    @property
    def type(self) -> str:
        return ADAPTER_TYPE


class SparkSessionConnectionManager(SparkConnectionManager):
    TYPE = ADAPTER_TYPE

    @classmethod
    def open(cls, connection: Connection) -> Connection:
        connection = super().open(connection)
        # Spark's WARN lines (one per dbt statement) would bury dbt's own output.
        context = SparkContext._active_spark_context
        if context is not None:
            context.setLogLevel(os.environ.get("SYNC_LOGS_SPARK_LOG_LEVEL", "ERROR"))
        return connection
