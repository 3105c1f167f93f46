"""One local SparkSession per test process; dbt runs in-process on it.

`make test` runs two pytest-xdist workers (`--dist loadfile`). Each worker is its own process
with its own SparkSession and warehouse folder, and runs whole test modules, so a module-scoped
build runs once; a session-scoped one (the consumer project's) once in each worker that needs it.
"""

import os
from pathlib import Path

import pytest

from sync_logs.spark import local_session


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
