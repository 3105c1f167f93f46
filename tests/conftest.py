"""One local SparkSession per test process; dbt runs in-process on it.

`make test` runs two pytest-xdist workers (`--dist loadgroup`). Each worker is its own process
with its own SparkSession and warehouse folder. A test module is one group, so its
module-scoped builds run once; the consumer folder, whose build is session-scoped, is one group.
"""

import os
from pathlib import Path

import pytest

from sync_logs.spark import local_session

TESTS = Path(__file__).resolve().parent
# Folders whose modules share a session-scoped fixture: each runs whole in one worker.
SHARED_SESSION_FOLDERS = ("consumer",)


def pytest_collection_modifyitems(items):
    for item in items:
        relative = Path(str(item.fspath)).resolve().relative_to(TESTS)
        shared = relative.parts[0] in SHARED_SESSION_FOLDERS
        group = relative.parts[0] if shared else relative.as_posix()
        item.add_marker(pytest.mark.xdist_group(group))


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
