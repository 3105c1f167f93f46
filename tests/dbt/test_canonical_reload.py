"""Run folders that change after they were loaded: a run reloaded with no records left, and a
run whose folder turned invalid. The incremental build must drop their old changelog rows,
recompute the later run of the sync, and equal a first build of the final lake row for row.

One lake holds both scenarios, in syncs of their own: sync 20 (a reloaded and an invalid run
before a later one) and syncs 31 to 35 (syncs and runs left with zero rows). Three builds: the
first lake and the changed lake into one warehouse (`dbt build`, data tests included), and a
first build of the changed lake into another (`dbt run`: every table it writes is compared
with the incremental one, which the data tests checked)."""

from __future__ import annotations

import shutil

import pytest
from build_comparison import COMPARED_TABLES, comparable_rows

from handmade_lake import at, payload, rec, run_dir, upsert, write_batch, write_run
from sync_logs_dev.dbt_invoke import run_dbt

SYNC = 20
INCREMENTAL, REBUILT = "canon_reload", "canon_reload_full"
RECORDS = "records_updated.0.parquet"
def build(lake, work, schema: str, command: str = "build") -> None:
    run_dbt(
        [command, "--select", "path:models/canonical", "path:tests/data"],
        target_dir=work / schema,
        dbt_vars={"sync_logs_raw_root": str(lake), "sync_logs_all_data_tests": True},
        env={"SYNC_LOGS_SCHEMA": schema},
    )


def reload_lake(lake) -> None:
    """Sync 20: four runs of upserts; run 2 also deletes row e, which run 4 adds again."""
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
        write_run(lake, 1, SYNC, run, at(60 * (run - 1)), {RECORDS: rows})


def reload_runs(lake) -> None:
    """Run 2 now has no record file at all; run 3's metadata.json is no longer JSON."""
    (run_dir(lake, 1, SYNC, 2) / RECORDS).unlink()
    write_run(lake, 1, SYNC, 2, at(60))
    (run_dir(lake, 1, SYNC, 3) / "metadata.json").write_text("{not json", encoding="utf-8")


def reload_rows(spark, table: str, *columns: str) -> list[tuple]:
    """`columns` of sync 20's rows (the reload scenario's) in the incremental warehouse, sorted."""
    frame = spark.table(f"{INCREMENTAL}.{table}").where(f"sync_id = {SYNC}").select(*columns)
    return sorted(tuple(row) for row in frame.collect())


def op_types(spark) -> list[tuple]:
    columns = ("sync_run_id", "row_id", "op_type", "payload_changed")
    return reload_rows(spark, "sync_changelog", *columns)


def emptied_rows(spark, table: str, *columns: str) -> list[tuple]:
    """`columns` of every row but sync 20's in the incremental warehouse (the emptied scenario's,
    and any row without a sync), sorted."""
    frame = spark.table(f"{INCREMENTAL}.{table}")
    frame = frame.where(frame.sync_id.isNull() | (frame.sync_id != SYNC)).select(*columns)
    return sorted((tuple(row) for row in frame.collect()), key=repr)


def emptied_lake(lake) -> None:
    """Sync 31: one run. 32: three runs. 33: two runs. 34: one run. 35: one run, whose second
    file is not parquet (quarantined). Run ids are unique across syncs (<sync><n>)."""
    write_run(lake, 1, 31, 311, at(0), {RECORDS: [upsert("a", 1, 1), upsert("b", 1, 1)]})
    write_run(lake, 1, 32, 321, at(0), {RECORDS: [upsert("a", 1, 1), upsert("b", 1, 1)]})
    write_run(lake, 1, 32, 322, at(60), {RECORDS: [upsert("a", 2, 61), upsert("c", 1, 61)]})
    write_run(lake, 1, 32, 323, at(120), {RECORDS: [upsert("b", 2, 121)]})
    write_run(lake, 1, 33, 331, at(0), {RECORDS: [upsert("a", 1, 1), upsert("b", 1, 1)]})
    write_run(lake, 1, 33, 332, at(60), {RECORDS: [upsert("a", 2, 61)]})
    write_run(lake, 1, 34, 341, at(0), {RECORDS: [upsert("a", 1, 1)]})
    write_run(lake, 1, 35, 351, at(0), {RECORDS: [upsert("a", 1, 1)]})
    (run_dir(lake, 1, 35, 351) / "records_updated.1.parquet").write_bytes(b"not parquet")


def empty_runs(lake) -> None:
    """Record files go (folders and metadata.json stay): sync 31's only run, sync 32's middle
    run, both files of sync 35's only run; sync 33's latest run now holds a file of zero rows;
    sync 34's only run turns invalid."""
    (run_dir(lake, 1, 31, 311) / RECORDS).unlink()
    (run_dir(lake, 1, 32, 322) / RECORDS).unlink()
    (run_dir(lake, 1, 35, 351) / RECORDS).unlink()
    (run_dir(lake, 1, 35, 351) / "records_updated.1.parquet").unlink()
    write_batch(run_dir(lake, 1, 33, 332), RECORDS, [])
    (run_dir(lake, 1, 34, 341) / "metadata.json").write_text("{not json", encoding="utf-8")


def relative(path: str) -> str:
    return path.split("/lake/", 1)[1]


@pytest.fixture(scope="module")
def changed(spark, tmp_path_factory):
    work = tmp_path_factory.mktemp("canonical_reload")
    lake = work / "lake"
    reload_lake(lake)
    emptied_lake(lake)
    build(lake, work, INCREMENTAL)
    first = {
        "reload_op_types": op_types(spark),
        "emptied_changelog": emptied_rows(
            spark, "sync_changelog", "sync_id", "sync_run_id", "row_id"
        ),
        "emptied_quarantine": sorted(
            relative(path)
            for (path,) in emptied_rows(spark, "sync_logs_quarantine", "path")
        ),
    }
    reload_runs(lake)
    empty_runs(lake)
    build(lake, work, INCREMENTAL)
    build(lake, work, REBUILT, "run")
    yield first
    shutil.rmtree(work, ignore_errors=True)


def test_first_build_saw_all_four_runs(changed):
    assert changed["reload_op_types"] == [
        (1, "a", "added", True), (1, "b", "added", True),
        (1, "c", "added", True), (1, "e", "added", True),
        (2, "a", "changed", True), (2, "e", "removed", False),
        (3, "c", "changed", True),
        (4, "a", "changed", True), (4, "c", "changed", False), (4, "e", "added", True),
    ]  # fmt: skip


def test_emptied_and_invalid_runs_leave_and_the_later_run_is_recomputed(spark, changed):
    assert op_types(spark) == [
        (1, "a", "added", True), (1, "b", "added", True),
        (1, "c", "added", True), (1, "e", "added", True),
        (4, "a", "changed", True), (4, "c", "changed", True), (4, "e", "changed", False),
    ]  # fmt: skip


def test_runs_keep_the_emptied_run_and_drop_the_invalid_one(spark, changed):
    assert reload_rows(
        spark, "sync_runs",
        "sync_run_id", "num_records", "num_changelog_rows", "num_planned_add", "num_planned_change",
    ) == [
        (1, 4, 4, 4, 0),
        (2, 0, 0, 0, 0),
        (4, 3, 3, 0, 3),
    ]


def test_plan_of_the_second_build(spark, changed):
    rows = reload_rows(
        spark, "int_sync_logs__build_plan",
        "sync_run_id", "action", "is_superseded", "cutoff_sync_run_id", "committed_version",
    )
    assert [row[:4] for row in rows] == [
        (1, None, None, None),
        (2, "load", True, 2),
        (3, "clear", True, 2),
        (4, "recompute", False, 2),
    ]
    assert all(row[4] is not None for row in rows), "every run of the first build is committed"


def test_snapshot_keeps_first_added_from_the_first_run(spark, changed):
    first_added = at(2).replace(tzinfo=None)
    assert reload_rows(
        spark, "sync_snapshot", "row_id", "sync_run_id", "op_type", "fields", "first_added_at"
    ) == [
        ("a", 4, "changed", payload(v=3), first_added),
        ("b", 1, "unchanged", payload(v=1), first_added),
        ("c", 4, "changed", payload(v=2), first_added),
        ("e", 4, "changed", payload(v=1), first_added),
    ]


# Syncs and runs that end up with zero rows (issue 15, item 3): syncs 31 to 35.
def test_emptied_lake_first_build_loaded_every_run(changed):
    assert changed["emptied_changelog"] == [
        (31, 311, "a"), (31, 311, "b"),
        (32, 321, "a"), (32, 321, "b"), (32, 322, "a"), (32, 322, "c"), (32, 323, "b"),
        (33, 331, "a"), (33, 331, "b"), (33, 332, "a"),
        (34, 341, "a"),
        (35, 351, "a"),
    ]  # fmt: skip
    assert changed["emptied_quarantine"] == [
        "sync_tracking_datasets/1/35/351/records_updated.1.parquet"
    ]


def test_emptied_runs_leave_the_changelog(spark, changed):
    columns = ("sync_id", "sync_run_id", "row_id", "op_type")
    assert emptied_rows(spark, "sync_changelog", *columns) == [
        (32, 321, "a", "added"), (32, 321, "b", "added"), (32, 323, "b", "changed"),
        (33, 331, "a", "added"), (33, 331, "b", "added"),
    ]  # fmt: skip


def test_a_sync_without_rows_has_no_snapshot(spark, changed):
    expected = [
        (32, "a", 321, "unchanged", payload(v=1)),
        (32, "b", 323, "changed", payload(v=2)),
        (33, "a", 331, "unchanged", payload(v=1)),
        (33, "b", 331, "unchanged", payload(v=1)),
    ]
    columns = ("sync_id", "row_id", "sync_run_id", "op_type", "fields")
    assert emptied_rows(spark, "sync_snapshot", *columns) == expected
    assert emptied_rows(spark, "int_sync_logs__snapshot", *columns) == expected


def test_runs_with_zero_records_stay_and_the_invalid_only_run_leaves(spark, changed):
    columns = ("sync_id", "sync_run_id", "num_records", "num_files", "num_changelog_rows")
    assert emptied_rows(spark, "sync_runs", *columns) == [
        (31, 311, 0, 0, 0),
        (32, 321, 2, 1, 2), (32, 322, 0, 0, 0), (32, 323, 1, 1, 1),
        (33, 331, 2, 1, 2), (33, 332, 0, 1, 0),
        (35, 351, 0, 0, 0),
    ]  # fmt: skip


def test_removed_record_files_leave_the_file_inventory(spark, changed):
    files = emptied_rows(spark, "int_sync_logs__record_files", "path", "num_rows")
    assert [(relative(path), rows) for path, rows in files] == [
        ("sync_tracking_datasets/1/32/321/records_updated.0.parquet", 2),
        ("sync_tracking_datasets/1/32/323/records_updated.0.parquet", 1),
        ("sync_tracking_datasets/1/33/331/records_updated.0.parquet", 2),
        ("sync_tracking_datasets/1/33/332/records_updated.0.parquet", 0),
    ]


def test_quarantine_forgets_the_removed_file_and_lists_the_invalid_run(spark, changed):
    rows = emptied_rows(spark, "sync_logs_quarantine", "item_type", "path", "reason")
    assert [(kind, relative(path), reason) for kind, path, reason in rows] == [
        ("run_folder", "sync_tracking_datasets/1/34/341", "metadata.json is not a JSON object"),
    ]


@pytest.mark.parametrize("table", COMPARED_TABLES)
def test_incremental_equals_first_build_of_the_final_lake(spark, changed, table):
    assert comparable_rows(spark, INCREMENTAL, table) == comparable_rows(spark, REBUILT, table)
