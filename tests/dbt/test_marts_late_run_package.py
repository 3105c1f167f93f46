"""Mode `package`: a late run changes the op_types of the runs after it (the changelog
recomputes them), and the incrementally built intermediates and marts must follow, row for row
as a clean build of the same lake. The run-scoped models write a sync's new runs alone: the
recomputed runs must reach them through their run fingerprints.

Three builds: the first lake, the same schema after the late run arrived, and a clean build of
the final lake in another schema."""

from __future__ import annotations

import shutil

import pytest
from build_comparison import comparable_rows
from marts_harness import MARTS, SYNC_SCOPED_INTERMEDIATES

from handmade_lake import at, upsert, write_run
from sync_logs_dev.dbt_invoke import run_dbt

ORG = 42
INCREMENTAL, CLEAN = "marts_late", "marts_late_clean"
RECORDS = "records_updated.0.parquet"
COMPARED = [*SYNC_SCOPED_INTERMEDIATES, *MARTS]


def run(lake, run_id: int, minute: float, rows: list[dict]) -> None:
    write_run(lake, ORG, 101, run_id, at(minute), {RECORDS: rows})


def build(lake, work, schema: str) -> None:
    for args in (["seed"], ["run", "--select", "package:sync_logs"]):
        run_dbt(args, target_dir=work / schema, dbt_vars={"sync_logs_raw_root": str(lake)},
                env={"SYNC_LOGS_SCHEMA": schema})


@pytest.fixture(scope="module")
def late(tmp_path_factory):
    work = tmp_path_factory.mktemp("marts_late_run")
    lake = work / "lake"
    run(lake, 1011, 0, [upsert("a", 1, 1), upsert("b", 1, 1)])
    run(lake, 1013, 120, [upsert("a", 2, 121), upsert("c", 1, 121)])
    build(lake, work, INCREMENTAL)
    # started between 1011 and 1013: c is added here, so 1013 changes it
    run(lake, 1012, 60, [upsert("c", 9, 61), upsert("d", 1, 61)])
    build(lake, work, INCREMENTAL)
    build(lake, work, CLEAN)
    yield
    shutil.rmtree(work, ignore_errors=True)


def test_the_late_run_recomputed_the_later_run(spark, late):
    rows = spark.table(f"{INCREMENTAL}.sync_changelog").where("sync_run_id = 1013")
    assert sorted((row["row_id"], row["op_type"]) for row in rows.collect()) == [
        ("a", "changed"), ("c", "changed")]


@pytest.mark.parametrize("table", COMPARED)
def test_marts_equal_a_clean_build(spark, late, table):
    assert comparable_rows(spark, INCREMENTAL, table) == comparable_rows(spark, CLEAN, table)
