"""One local SparkSession per test process; dbt runs in-process on it.

`make test` runs two pytest-xdist workers (`--dist loadfile`). Each worker is its own process
with its own SparkSession and warehouse folder, and runs whole test modules, so a module-scoped
build runs once. The modules that use the consumer project's session-scoped build go to one
worker together, which builds it once.
Builds of the same project, vars and target start from one saved dbt parse
(`sync_logs_dev.dbt_parse_cache`), shared by the workers.
"""

import os
import re
from collections import defaultdict
from pathlib import Path

import pytest

from sync_logs.spark import local_session
from sync_logs_dev.dbt_parse_cache import CACHE_ENV

# The modules that use the consumer project's session-scoped build (tests/consumer/conftest.py).
CONSUMER_BUILD_MODULES = frozenset(
    f"tests/consumer/test_{name}.py"
    for name in ("analyses", "consumer_project", "docs_coverage", "docs_site")
)


# Seconds a unit took in a fresh-clone CI run (setup and tests), for the longest units only:
# the scheduler hands out the longest first, so that no long module starts last.
UNIT_SECONDS = {
    "tests/dbt/test_crash_and_lock.py": 470,
    "tests/dbt/test_canonical_reload.py": 260,
    "tests/cluster/test_cluster_build.py": 240,
    "tests/consumer/test_fresh_install.py": 130,
    "tests/dbt/test_canonical_build.py": 120,
    "tests/cluster/test_thrift_build.py": 110,
    "tests/consumer/test_newest_python.py": 100,
    "tests/dbt/test_retention.py": 100,
    "tests/dbt/test_upgrade.py": 95,
    "tests/dbt/test_marts_incremental.py": 180,
    "tests/dbt/test_canonical_failed_build.py": 95,
    "tests/dbt/test_raw_root_rename.py": 60,
    "consumer_build": 80,
    "tests/dbt/test_marts_package_mode.py": 75,
    "tests/dbt/test_record_lookup.py": 70,
    "tests/dbt/test_marts_engines.py": 65,
    "tests/python/test_run_manifest_inventory.py": 65,
    "tests/report/test_report.py": 55,
}


# Folders of the repository's own test and bench modules; pytest imports them under their bare
# file names (`marts_harness`, `test_retention`), so the error filter names each one.
OWN_MODULE_FOLDERS = ("tests", "bench")
NOT_OURS = {"dbt_packages", "target", "logs"}


def own_module_names(checkout: Path) -> set[str]:
    names = set()
    for folder in OWN_MODULE_FOLDERS:
        for _parent, subfolders, files in os.walk(checkout / folder):
            subfolders[:] = [s for s in subfolders if s not in NOT_OURS and not s.startswith(".")]
            names.update(name.removesuffix(".py") for name in files if name.endswith(".py"))
    return names


def pytest_configure(config) -> None:
    """A warning raised from a test or bench module fails the run, as one from the library
    does (pyproject.toml's filterwarnings)."""
    names = "|".join(sorted(map(re.escape, own_module_names(Path(__file__).parent.parent))))
    config.addinivalue_line("filterwarnings", f"error:::({names})\\Z")


@pytest.hookimpl(optionalhook=True)  # xdist's hook: absent where xdist is not installed
def pytest_xdist_make_scheduler(config, log):
    """`--dist loadfile`, except that the modules sharing the consumer build are one unit, so
    that one worker builds it, and that the longest units (UNIT_SECONDS) go first."""
    if config.getvalue("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    class ModuleScheduling(LoadFileScheduling):
        def _split_scope(self, nodeid: str) -> str:
            module = super()._split_scope(nodeid)
            return "consumer_build" if module in CONSUMER_BUILD_MODULES else module

        def _assign_work_unit(self, node) -> None:
            longest = max(self.workqueue, key=lambda unit: UNIT_SECONDS.get(unit, 0))
            self.workqueue.move_to_end(longest, last=False)
            super()._assign_work_unit(node)

    return ModuleScheduling(config, log)


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
    session = local_session(warehouse, driver_memory="4g", shuffle_partitions=2, small_data=True)
    yield session
    session.stop()


# Seconds (setup, call and teardown) and tests per module, from every report the run receives:
# under xdist the controller receives the workers' reports.
_module_seconds: dict[str, float] = defaultdict(float)
_module_tests: dict[str, int] = defaultdict(int)


def pytest_runtest_logreport(report) -> None:
    module = report.nodeid.split("::", 1)[0]
    _module_seconds[module] += report.duration
    if report.when == "call" or (report.when == "setup" and report.skipped):
        _module_tests[module] += 1


def pytest_terminal_summary(terminalreporter) -> None:
    """The time of each module, longest first: where the suite's time goes, without a rerun."""
    if not _module_seconds or hasattr(terminalreporter.config, "workerinput"):
        return
    terminalreporter.write_sep("=", "seconds per module (setup, tests, teardown)")
    for module, seconds in sorted(_module_seconds.items(), key=lambda item: -item[1]):
        terminalreporter.write_line(f"{seconds:8.1f} s  {_module_tests[module]:4d} tests  {module}")
    total = sum(_module_seconds.values())
    terminalreporter.write_line(f"{total:8.1f} s  {sum(_module_tests.values()):4d} tests  in all")
