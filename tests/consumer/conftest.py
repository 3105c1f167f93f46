"""One build of the consumer project (tests/consumer_project) for every test in this folder.

The consumer installs this repository with `dbt deps` (packages.yml: `local: ../..`), and
`dbt build`s the package and its own models on the embedded Spark target over a small
generated lake; `dbt docs generate` follows on the built relations."""

from pathlib import Path

import pytest
from consumer_harness import CONSUMER, ConsumerBuild, install_package

from sync_logs_dev.generator import GenerateSummary, generate_lake


@pytest.fixture(scope="session")
def consumer_lake(tmp_path_factory) -> GenerateSummary:
    """3 syncs x 4 runs, 3,000 records: a few seconds of Spark per model."""
    lake = tmp_path_factory.mktemp("consumer_lake")
    return generate_lake(lake, syncs=3, runs_per_sync=4, records=3000, seed=11)


@pytest.fixture(scope="session")
def consumer_deps() -> Path:
    install_package()
    return CONSUMER


@pytest.fixture(scope="session")
def consumer_build(spark, consumer_lake, consumer_deps, tmp_path_factory) -> ConsumerBuild:
    build = ConsumerBuild(consumer_lake, tmp_path_factory.mktemp("consumer_build"), spark)
    # the package's unit tests are off here, as in any installing project (var
    # sync_logs_unit_tests); tests/dbt/test_marts_engines runs them, on this engine too
    build.dbt("build")
    # compiles every node (analyses included) into manifest.json, and writes catalog.json
    build.dbt("docs", "generate")
    return build
