"""One local SparkSession per test process; dbt runs in-process on it.

`make test` runs two pytest-xdist workers (`--dist loadgroup`). Each worker is its own process
with its own SparkSession and warehouse folder. A test module is one group, so its
module-scoped builds run once; the tests that use the consumer project's session-scoped build
are one group, so it is built once.
"""

import os
from pathlib import Path

import pytest

from sync_logs.spark import local_session

TESTS = Path(__file__).resolve().parent
# Session-scoped fixtures that build something: their tests run in one worker.
SHARED_SESSION_BUILDS = {"consumer_lake", "consumer_deps", "consumer_build"}


def pytest_collection_modifyitems(items):
    for item in items:
        shared = SHARED_SESSION_BUILDS.intersection(item.fixturenames)
        group = "consumer_build" if shared else Path(str(item.fspath)).relative_to(TESTS)
        item.add_marker(pytest.mark.xdist_group(str(group)))


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
