"""Services the beyond-one-machine tests start for themselves and always stop. They FAIL (never
skip) when a service cannot start, quoting its log."""

from __future__ import annotations

import atexit
import signal

import pytest

from sync_logs_dev.services import ServiceError, SparkCluster, ThriftServer


def pytest_configure(config):
    config.addinivalue_line(
        "markers",
        "beyond_one_machine: starts Spark services (cluster, Thrift server) or dbt-databricks; "
        "select or deselect with -m",
    )


def pytest_collection_modifyitems(items):
    for item in items:
        if "tests/cluster/" in str(item.fspath).replace("\\", "/"):
            item.add_marker(pytest.mark.beyond_one_machine)


def _stop_on_sigterm() -> None:
    """SIGTERM (a CI timeout, `kill`) unwinds pytest, so fixture finalizers stop the services."""
    if signal.getsignal(signal.SIGTERM) is signal.SIG_DFL:
        def interrupt(*_):
            raise KeyboardInterrupt("SIGTERM")

        signal.signal(signal.SIGTERM, interrupt)


@pytest.fixture(scope="module")
def spark_cluster(tmp_path_factory):
    """A standalone master and two workers (1 core, 1 GiB each) on free loopback ports."""
    _stop_on_sigterm()
    cluster = SparkCluster.with_free_ports(tmp_path_factory.mktemp("spark_cluster"), workers=2)
    atexit.register(cluster.stop)  # also when the session ends abnormally
    try:
        cluster.start()
    except ServiceError as error:
        pytest.fail(f"could not start the Spark standalone cluster: {error}")
    yield cluster
    cluster.stop()


@pytest.fixture(scope="module")
def thrift_server(tmp_path_factory):
    """A Spark Thrift server on a free loopback port, warehouse and metastore in its own folder,
    sized for the fixture's tables of a few rows (the cluster build runs Spark's defaults)."""
    _stop_on_sigterm()
    server = ThriftServer.with_free_ports(tmp_path_factory.mktemp("thrift_server"),
                                          small_data=True)
    atexit.register(server.stop)
    try:
        server.start()
    except ServiceError as error:
        pytest.fail(f"could not start the Spark Thrift server: {error}")
    yield server
    server.stop()
