"""Run folders that change after they were loaded: a run reloaded with no records left, and a
run whose folder turned invalid. The incremental build must drop their old changelog rows,
recompute the later run of the sync, and equal a first build of the final lake row for row."""

from __future__ import annotations

import shutil

import pytest

from handmade_lake import at, payload, rec, run_dir, write_run
from sync_logs.dbt_invoke import run_dbt

SYNC = 20
INCREMENTAL, REBUILT = "canon_reload", "canon_reload_full"
LOAD_TIME_COLUMNS = {"logged_at", "manifest_version", "loaded_at"}


def upsert(row_id: str, version: int, minute: float) -> dict:
    return rec(row_id, payload(v=version), started=at(minute), ended=at(minute + 1))


def build(lake, work, schema: str) -> None:
    run_dbt(
        ["build", "--select", "path:models/canonical", "path:tests/data"],
        target_dir=work / schema,
        dbt_vars={"raw_root": str(lake)},
        env={"SYNC_LOGS_SCHEMA": schema},
    )


@pytest.fixture(scope="module")
def reloaded(spark, tmp_path_factory):
    work = tmp_path_factory.mktemp("canonical_reload")
    lake = work / "lake"
    batches = {
        1: [upsert("a", 1, 1), upsert("b", 1, 1), upsert("c", 1, 1), upsert("e", 1, 1)],
        2: [
            upsert("a", 2, 61),
            rec("e", payload(v=1), operation="delete", started=at(61), ended=at(62)),
        ],
        3: [upsert("c", 2, 121)],
        4: [upsert("a", 3, 181), upsert("c", 2, 181), upsert("e", 1, 181)],
    }
    for run, rows in batches.items():
        write_run(lake, 1, SYNC, run, at(60 * (run - 1)), {"records_updated.0.parquet": rows})
    build(lake, work, INCREMENTAL)
    before = op_types(spark, INCREMENTAL)

    # run 2 now has no record file at all; run 3's metadata.json is no longer JSON
    (run_dir(lake, 1, SYNC, 2) / "records_updated.0.parquet").unlink()
    write_run(lake, 1, SYNC, 2, at(60))
    (run_dir(lake, 1, SYNC, 3) / "metadata.json").write_text("{not json", encoding="utf-8")
    build(lake, work, INCREMENTAL)
    build(lake, work, REBUILT)
    yield before
    shutil.rmtree(work, ignore_errors=True)


def op_types(spark, schema: str) -> list[tuple]:
    rows = spark.table(f"{schema}.sync_changelog").select(
        "sync_run_id", "row_id", "op_type", "payload_changed"
    )
    return sorted(tuple(row) for row in rows.collect())


def table_rows(spark, schema: str, table: str) -> list[tuple]:
    frame = spark.table(f"{schema}.{table}")
    columns = [column for column in frame.columns if column not in LOAD_TIME_COLUMNS]
    return sorted((tuple(row) for row in frame.select(*columns).collect()), key=repr)


def test_first_build_saw_all_four_runs(reloaded):
    assert reloaded == [
        (1, "a", "added", True), (1, "b", "added", True),
        (1, "c", "added", True), (1, "e", "added", True),
        (2, "a", "changed", True), (2, "e", "removed", False),
        (3, "c", "changed", True),
        (4, "a", "changed", True), (4, "c", "changed", False), (4, "e", "added", True),
    ]  # fmt: skip


def test_emptied_and_invalid_runs_leave_and_the_later_run_is_recomputed(spark, reloaded):
    assert op_types(spark, INCREMENTAL) == [
        (1, "a", "added", True), (1, "b", "added", True),
        (1, "c", "added", True), (1, "e", "added", True),
        (4, "a", "changed", True), (4, "c", "changed", True), (4, "e", "changed", False),
    ]  # fmt: skip


def test_runs_keep_the_emptied_run_and_drop_the_invalid_one(spark, reloaded):
    runs = spark.table(f"{INCREMENTAL}.sync_runs").select(
        "sync_run_id", "num_records", "num_changelog_rows", "num_planned_add", "num_planned_change"
    )
    assert sorted(tuple(row) for row in runs.collect()) == [
        (1, 4, 4, 4, 0),
        (2, 0, 0, 0, 0),
        (4, 3, 3, 0, 3),
    ]


def test_plan_of_the_second_build(spark, reloaded):
    plan = spark.table(f"{INCREMENTAL}.int_sync_logs__runs_to_rewrite").select(
        "sync_run_id", "action", "is_superseded", "cutoff_sync_run_id"
    )
    assert sorted(tuple(row) for row in plan.collect()) == [
        (2, "load", True, 2),
        (3, "clear", True, 2),
        (4, "recompute", False, 2),
    ]


def test_snapshot_keeps_first_added_from_the_first_run(spark, reloaded):
    snapshot = spark.table(f"{INCREMENTAL}.sync_snapshot").select(
        "row_id", "sync_run_id", "op_type", "fields", "first_added_at"
    )
    first_added = at(2).replace(tzinfo=None)
    assert sorted(tuple(row) for row in snapshot.collect()) == [
        ("a", 4, "changed", payload(v=3), first_added),
        ("b", 1, "unchanged", payload(v=1), first_added),
        ("c", 4, "changed", payload(v=2), first_added),
        ("e", 4, "changed", payload(v=1), first_added),
    ]


@pytest.mark.parametrize(
    "table", ["sync_changelog", "sync_snapshot", "sync_runs", "sync_log", "int_sync_logs__snapshot"]
)
def test_incremental_equals_first_build_of_the_final_lake(spark, reloaded, table):
    assert table_rows(spark, INCREMENTAL, table) == table_rows(spark, REBUILT, table)
