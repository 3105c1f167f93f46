"""One local SparkSession per test process; dbt runs in-process on it.

`make test` runs two pytest-xdist workers (`--dist loadfile`). Each worker is its own process
with its own SparkSession and warehouse folder, and runs whole test modules, so a module-scoped
build runs once; a session-scoped one (the consumer project's) once in each worker that needs it.
"""

import os
from pathlib import Path

import pytest

from sync_logs.spark import local_session

# Test lakes hold a few thousand records: their builds spend most CPU compiling (the JVM's
# optimising JIT, Spark's whole-stage code), not running it. With the C1 JIT only, the serial
# GC and no whole-stage code, the hand-made lake builds in 57 s cold / 37 s warm, against
# 84 / 42 s. (Spark's fully interpreted mode, factoryMode=NO_CODEGEN, was 10% faster still,
# but breaks `spark.catalog.listTables`.) Every Spark JVM the tests start through
# spark-submit reads this: this process's session, dbt subprocesses, the Thrift server.
# Builds of real lakes (demo, bench, users' profiles) keep Spark's defaults.
TEST_SPARK_SUBMIT_OPTS = (
    "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Dspark.sql.codegen.wholeStage=false"
)
os.environ.setdefault("SPARK_SUBMIT_OPTS", TEST_SPARK_SUBMIT_OPTS)


@pytest.fixture(scope="session")
def warehouse(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("warehouse")
    os.environ["SYNC_LOGS_WAREHOUSE_DIR"] = str(path)
    return path


@pytest.fixture(scope="session")
def spark(warehouse):
    session = local_session(warehouse, driver_memory="4g", shuffle_partitions=2)
    yield session
    session.stop()
