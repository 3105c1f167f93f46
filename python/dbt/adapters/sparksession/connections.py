"""Credentials and connections: dbt-spark's, with `session` as the default method."""

import os
import sys
from dataclasses import dataclass
from typing import Any

from dbt.adapters.spark.connections import SparkConnectionManager, SparkCredentials

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
