"""Folders that are not loaded are reported (issue 15, item 4): hidden names (`_` or `.`),
empty files, folder names that are not integers, and two folders naming the same run
(`880117` and `0880117`: neither is loaded). Two folders naming one sync or org with different
runs (`45/451` and `045/452`) are not ambiguous: both runs load (issue 37, case 3). Two builds of
one warehouse: the second adds a folder that conflicts with a run the first build loaded, which
must leave every table."""

from __future__ import annotations

import shutil

import pytest

from handmade_lake import at, metadata, payload, rec, run_dir, write_run
from sync_logs_dev.dbt_invoke import run_dbt

SCHEMA = "canon_folders"
RECORDS = "records_updated.0.parquet"


def records(row_id: str) -> dict:
    return {RECORDS: [rec(row_id, payload(v=1), started=at(1), ended=at(2))]}


def build(lake, work, command: str = "build") -> None:
    run_dbt(
        [command, "--select", "path:models/canonical", "path:tests/data"],
        target_dir=work / "t",
        dbt_vars={"sync_logs_raw_root": str(lake), "sync_logs_all_data_tests": True},
        env={"SYNC_LOGS_SCHEMA": SCHEMA},
    )


def write_named_run(lake, org: str, sync: str, run: str, row_id: str) -> None:
    """A run folder named as given, whose metadata.json holds the integer ids."""
    meta = metadata(int(org), int(sync), int(run), at(0))
    write_run(lake, org, sync, run, at(0), records(row_id), meta=meta)


@pytest.fixture(scope="module")
def folders(spark, tmp_path_factory):
    work = tmp_path_factory.mktemp("canonical_folders")
    lake = work / "lake"
    # sync 40: a valid run with stray and hidden files, and an empty (0-byte) batch file
    write_run(lake, 1, 40, 1, at(0), records("a"))
    control = run_dir(lake, 1, 40, 1)
    (control / "_SUCCESS").write_bytes(b"")
    (control / ".DS_Store").write_bytes(b"x")
    (control / "README").write_text("notes", encoding="utf-8")
    (control / "records_updated.1.parquet").write_bytes(b"")
    # folder names that are not integers, visible or hidden
    write_run(lake, "acme", 41, 1, at(0), records("b"), meta=metadata(1, 41, 1, at(0)))
    write_run(lake, 1, "sync41", 1, at(0), records("b"), meta=metadata(1, 41, 1, at(0)))
    write_run(lake, 1, "_42", 1, at(0), records("c"), meta=metadata(1, 42, 1, at(0)))
    write_run(lake, 1, 43, ".1", at(0), records("d"), meta=metadata(1, 43, 1, at(0)))
    # sync 44: run 880117 is loaded by the first build; its twin 0880117 arrives after
    write_named_run(lake, "1", "44", "880117", "e")
    # two sync folders naming sync 45, two org folders naming org 2, each with a run of its own
    write_named_run(lake, "1", "45", "451", "f")
    write_named_run(lake, "1", "045", "452", "f")
    write_named_run(lake, "2", "46", "461", "g")
    write_named_run(lake, "02", "46", "462", "g")
    build(lake, work, "run")  # the data tests run on the final build
    first_runs = sorted(
        tuple(row)
        for row in spark.table(f"{SCHEMA}.sync_runs").select("sync_id", "sync_run_id").collect()
    )
    write_named_run(lake, "1", "44", "0880117", "e")
    build(lake, work)
    yield first_runs
    shutil.rmtree(work, ignore_errors=True)


def relative(path: str) -> str:
    return path.split("/lake/", 1)[1]


def quarantine(spark, *severities: str) -> list[tuple]:
    rows = (
        spark.table(f"{SCHEMA}.sync_logs_quarantine")
        .filter(f"severity in ({', '.join(repr(s) for s in severities)})")
        .select("item_type", "path", "reason", "record_count")
        .collect()
    )
    return sorted((kind, relative(path), reason, count) for kind, path, reason, count in rows)


def test_the_first_build_loads_run_880117_before_its_twin(folders):
    assert (44, 880117) in folders


def test_only_the_valid_runs_are_loaded(spark, folders):
    runs = spark.table(f"{SCHEMA}.sync_runs").select("sync_id", "sync_run_id", "num_records")
    assert sorted(tuple(row) for row in runs.collect()) == [
        (40, 1, 1), (45, 451, 1), (45, 452, 1), (46, 461, 1), (46, 462, 1),
    ]  # fmt: skip
    changelog = spark.table(f"{SCHEMA}.sync_changelog").select("sync_id", "sync_run_id", "row_id")
    assert sorted(tuple(row) for row in changelog.collect()) == [
        (40, 1, "a"), (45, 451, "f"), (45, 452, "f"), (46, 461, "g"), (46, 462, "g"),
    ]  # fmt: skip
    snapshot = spark.table(f"{SCHEMA}.sync_snapshot").select("sync_id", "row_id")
    assert sorted(tuple(row) for row in snapshot.collect()) == [(40, "a"), (45, "f"), (46, "g")]


def test_hidden_files_and_folders_are_counted_and_listed_as_ignored(spark, folders):
    hidden = "hidden file(s) ignored (a name on the path starts with '_' or '.'): "
    assert quarantine(spark, "ignored") == [
        ("folder", "sync_tracking_datasets/1", "2 " + hidden + "_42/1/metadata.json, "
         "_42/1/records_updated.0.parquet", 2),
        ("folder", "sync_tracking_datasets/1/40/1", "2 " + hidden + ".DS_Store, _SUCCESS", 2),
        ("folder", "sync_tracking_datasets/1/43", "2 " + hidden + ".1/metadata.json, "
         ".1/records_updated.0.parquet", 2),
    ]  # fmt: skip


def test_conflicting_folders_are_reported_and_neither_is_loaded(spark, folders):
    run_conflict = (
        "2 folders name org_id 1, sync_id 44, sync_run_id 880117 ('1/44/0880117', '1/44/880117'):"
        " neither is loaded"
    )
    rows = [row for row in quarantine(spark, "not_loaded") if "neither is loaded" in row[2]]
    assert rows == [
        ("file", "sync_tracking_datasets/1/44/0880117/metadata.json", run_conflict, None),
        ("file", "sync_tracking_datasets/1/44/0880117/records_updated.0.parquet", run_conflict,
         None),
        ("file", "sync_tracking_datasets/1/44/880117/metadata.json", run_conflict, None),
        ("file", "sync_tracking_datasets/1/44/880117/records_updated.0.parquet", run_conflict,
         None),
        ("run_folder", "sync_tracking_datasets/1/44/0880117", run_conflict, None),
    ]  # fmt: skip


def test_names_that_are_not_integers_and_empty_files_are_reported(spark, folders):
    rows = [row[1:3] for row in quarantine(spark, "not_loaded")
            if "neither is loaded" not in row[2]]
    assert rows == [
        ("sync_tracking_datasets/1/40/1/README",
         "stray file: neither metadata.json nor <batch_type>.<batch_number>.parquet"),
        ("sync_tracking_datasets/1/40/1/records_updated.1.parquet", "empty file (0 bytes)"),
        ("sync_tracking_datasets/1/sync41/1/metadata.json",
         "sync_id folder name is not an integer: 'sync41'"),
        ("sync_tracking_datasets/1/sync41/1/records_updated.0.parquet",
         "sync_id folder name is not an integer: 'sync41'"),
        ("sync_tracking_datasets/acme/41/1/metadata.json",
         "org_id folder name is not an integer: 'acme'"),
        ("sync_tracking_datasets/acme/41/1/records_updated.0.parquet",
         "org_id folder name is not an integer: 'acme'"),
    ]  # fmt: skip
