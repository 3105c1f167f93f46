"""Credentials and connections: dbt-spark's, with `session` as the default method."""

from dataclasses import dataclass
from typing import Any

from dbt.adapters.spark.connections import SparkConnectionManager, SparkCredentials

ADAPTER_TYPE = "sparksession"


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
