"""Mode `census`: Census's `sync_log` holds no op_type, and the staging view derives it from each
row's earlier runs. So a run that arrives late (it started before runs already built) changes
the op_types of the runs after it, and the incrementally built intermediates and marts must
follow, row for row as a clean build of the same `sync_log` (on DuckDB).

Three builds: the fixture's `sync_log` without run 1002, the same schema once 1002 has
arrived, and a clean build of the whole fixture in another schema."""

import pytest
from marts_harness import MARTS, SYNC_SCOPED_INTERMEDIATES, Build, install_package

LATE_RUN = 1002  # started between 1001 and 1003 of sync 101
COMPARED = [*SYNC_SCOPED_INTERMEDIATES, *MARTS]


def changelog_of(build: Build, sync_run_id: int) -> list[tuple]:
    return sorted(
        (row["row_id"], row["op_type"], row["payload_changed"])
        for row in build.rows("stg_sync_logs__sync_changelog")
        if row["sync_run_id"] == sync_run_id
    )


@pytest.fixture(scope="module")
def builds(tmp_path_factory):
    install_package()
    late = Build("duckdb", tmp_path_factory.mktemp("census_late"), source="census")
    late.seed()
    late.execute(f"delete from {late.schema}.census_sync_log where sync_run_id = {LATE_RUN}")
    late.build_models()
    before = changelog_of(late, LATE_RUN + 1)
    late.dbt("seed", "--select", "census_sync_log")  # the whole log again: 1002 arrives
    late.build_models()
    clean = Build("duckdb", tmp_path_factory.mktemp("census_late_clean"), source="census")
    yield before, late, clean.build()


def test_the_late_run_changes_the_later_run(builds):
    before, late, _ = builds
    assert changelog_of(late, LATE_RUN + 1) != before


@pytest.mark.parametrize("table", COMPARED)
def test_marts_equal_a_clean_build(builds, table):
    _, late, clean = builds
    assert late.rows(table) == clean.rows(table)
