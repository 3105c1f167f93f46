"""Credentials and connections: dbt-spark's, with `session` as the default method."""

import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dbt.adapters.contracts.connection import Connection
from dbt.adapters.events.logging import AdapterLogger
from dbt.adapters.spark.connections import SparkConnectionManager, SparkCredentials
from dbt_common.exceptions import DbtRuntimeError
from dbt_common.invocation import get_invocation_id
from pyspark import SparkContext

from dbt.adapters.sparksession.class_archive import use_class_archive, writes_class_archive
from dbt.adapters.sparksession.warehouse_lock import WarehouseLocked, warehouse_lock

ADAPTER_TYPE = "sparksession"
logger = AdapterLogger("SparkSession")

# Python workers (mapInArrow, UDFs) run the interpreter that runs dbt, so they see its packages.
# Where workers live elsewhere (a cluster of other machines), set PYSPARK_PYTHON for them.
os.environ.setdefault("PYSPARK_PYTHON", sys.executable)


@dataclass
class SparkSessionCredentials(SparkCredentials):
    # Seconds to wait for another build that holds an embedded warehouse (0: fail at once).
    lock_wait_seconds: float = 300
    # The driver JVM starts from an archive of the classes an earlier one loaded (class_archive).
    jvm_class_archive: bool = True

    @classmethod
    def __pre_deserialize__(cls, data: Any) -> Any:
        data = super().__pre_deserialize__(data)
        data.setdefault("method", "session")
        data.setdefault("host", "localhost")
        return data

    @property
    def type(self) -> str:
        return ADAPTER_TYPE

    def connect_url(self) -> str | None:
        return remote_url(self.server_side_parameters)

    def embedded_warehouse(self) -> Path | None:
        return embedded_warehouse(self.server_side_parameters)


def remote_url(settings: dict) -> str | None:
    """The Spark Connect server the session reaches (`spark.remote`), if any: a running engine
    (`python -m dbt.adapters.sparksession.connect_server`) instead of a JVM of this process."""
    return settings.get("spark.remote") or None


def embedded_warehouse(settings: dict) -> Path | None:
    """The warehouse folder when the metastore is an embedded Derby database (one JVM) of this
    process: not when a Connect server holds it (and its lock)."""
    if remote_url(settings) is not None:
        return None
    if settings.get("spark.sql.catalogImplementation", "hive") != "hive":
        return None
    metastore = settings.get("spark.hadoop.javax.jdo.option.ConnectionURL", "jdbc:derby:;")
    if not metastore.startswith("jdbc:derby:") or metastore.startswith("jdbc:derby://"):
        return None
    return Path(settings.get("spark.sql.warehouse.dir", "spark-warehouse"))


class SparkSessionConnectionManager(SparkConnectionManager):
    TYPE = ADAPTER_TYPE

    @classmethod
    def open(cls, connection: Connection) -> Connection:
        credentials = connection.credentials
        warehouse = credentials.embedded_warehouse()
        if warehouse is not None:
            lock = warehouse_lock(warehouse)
            try:
                lock.acquire(credentials.lock_wait_seconds, get_invocation_id(), logger.info)
            except WarehouseLocked as error:
                raise DbtRuntimeError(str(error)) from None
        in_process = credentials.connect_url() is None
        if credentials.jvm_class_archive and in_process and not SparkContext._active_spark_context:
            use_class_archive(credentials.server_side_parameters)
        connection = super().open(connection)
        # Spark's WARN lines (one per dbt statement) would bury dbt's own output.
        context = SparkContext._active_spark_context
        if context is not None:
            context.setLogLevel(os.environ.get("SYNC_LOGS_SPARK_LOG_LEVEL", "ERROR"))
        return connection

    def add_query(self, *args: Any, **kwargs: Any) -> Any:
        """dbt-spark's; the first statement starts the SparkSession, whose JVM the warehouse
        lock then names."""
        result = super().add_query(*args, **kwargs)
        credentials = self.profile.credentials
        warehouse = credentials.embedded_warehouse()
        if warehouse is not None:
            jvm_pid = getattr(getattr(SparkContext._gateway, "proc", None), "pid", None)
            writes = writes_class_archive(credentials.server_side_parameters)
            if warehouse_lock(warehouse).note_jvm(jvm_pid, writes) and writes:
                logger.info(
                    f"sync_logs: this build's JVM (pid {jvm_pid}) writes the class archive of "
                    "Spark's classes as it exits, once per Java and Spark install: later builds "
                    "start faster"
                )
        return result
