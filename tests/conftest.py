"""One local SparkSession for the whole test session; dbt runs in-process on it."""

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
