"""One local SparkSession per test process; dbt runs in-process on it.

`make test` runs two pytest-xdist workers (`--dist loadgroup`). Each worker is its own process
with its own SparkSession and warehouse folder, and runs whole test modules, so a module-scoped
build runs once. The modules that use a session-scoped build (the consumer project's) form one
group, so one worker builds it, once.
Builds of the same project, vars and target start from one saved dbt parse
(`sync_logs.dbt_parse_cache`), shared by the workers.
"""

import os
from pathlib import Path

import pytest

from sync_logs.dbt_parse_cache import CACHE_ENV
from sync_logs.spark import local_session

SESSION_BUILDS = ("consumer_build",)


def pytest_collection_modifyitems(items):
    """An xdist group per module (as `--dist loadfile` would make), except that the modules
    using a session-scoped build share its group."""
    groups = {}
    for item in items:
        module = item.nodeid.split("::", 1)[0]
        shared = [name for name in SESSION_BUILDS if name in item.fixturenames]
        if shared or module not in groups:
            groups[module] = shared[0] if shared else module
    for item in items:
        item.add_marker(pytest.mark.xdist_group(groups[item.nodeid.split("::", 1)[0]]))


@pytest.fixture(scope="session", autouse=True)
def dbt_parse_cache(tmp_path_factory) -> Path:
    base = tmp_path_factory.getbasetemp()
    # Under xdist, the parent of a worker's base folder is the run's, shared by its workers.
    path = (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "dbt_parse_cache"
    path.mkdir(exist_ok=True)
    os.environ[CACHE_ENV] = str(path)
    return path


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
