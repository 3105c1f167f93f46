"""The run manifest as the lake's inventory: one row per folder, written when its listing changes;
a run's version, metadata and inspection change only with its loadable files."""

import os

import pyarrow as pa
import pytest

from handmade_lake import at, payload, rec, run_dir, write_facts, write_run
from sync_logs.canonical import lake, manifest

BATCH = "records_updated.0.parquet"
FACT_SCHEMA = pa.schema([("id", pa.int64()), ("type", pa.string()), ("name", pa.string())])


def build(spark, root, previous=None):
    return manifest.build_manifest(spark, lake.lake_files(spark, str(root)), previous)


def by_key(frame) -> dict:
    return {row["folder_key"]: row for row in frame.collect()}


@pytest.fixture
def lake_root(tmp_path):
    write_run(tmp_path, 1, 10, 100, at(0), {BATCH: [rec("a", payload(v=1))]})
    write_run(tmp_path, 1, 10, 101, at(60), meta="{not json")
    write_run(tmp_path, 1, 20, 200, at(0), {BATCH: [rec("b", payload(v=1))]})
    (tmp_path / "sync_tracking_datasets" / "1" / "README").write_text("stray")
    write_facts(tmp_path, 1, "destinations", [{"id": 8, "type": "sf", "name": "SF"}], FACT_SCHEMA)
    return tmp_path


def test_one_row_per_folder_run_folders_parsed_and_inspected(spark, lake_root):
    rows = by_key(build(spark, lake_root))
    assert sorted(rows) == [
        "metadata/1//",
        "sync_tracking_datasets/1//",
        "sync_tracking_datasets/1/10/100",
        "sync_tracking_datasets/1/10/101",
        "sync_tracking_datasets/1/20/200",
    ]
    valid = rows["sync_tracking_datasets/1/10/100"]
    invalid = rows["sync_tracking_datasets/1/10/101"]
    assert valid["is_valid"] and invalid["is_valid"] is False
    assert [(f["file_name"], f["num_rows"], f["is_loaded"]) for f in valid["record_files"]] == [
        ("records_updated.0.parquet", 1, True)
    ]
    assert invalid["record_files"] is None
    stray = rows["sync_tracking_datasets/1//"]
    assert stray["is_valid"] is None and stray["manifest_version"] is None
    assert [(f["file_name"], bool(f["problem"])) for f in stray["files"]] == [("README", True)]
    facts = rows["metadata/1//"]
    assert [(f["fact_table"], f["id"], f["name"]) for f in facts["fact_rows"]] == [
        ("destinations", 8, "SF")
    ]
    assert all(row["fact_rows"] is None for key, row in rows.items() if key != "metadata/1//")


def test_unchanged_lake_writes_nothing(spark, lake_root):
    first = build(spark, lake_root).localCheckpoint()
    assert build(spark, lake_root, first).count() == 0


def test_a_stray_file_in_a_run_folder_keeps_the_run_version(spark, lake_root):
    first = build(spark, lake_root).localCheckpoint()
    (run_dir(lake_root, 1, 10, 100) / "notes.txt").write_text("stray")
    written = by_key(build(spark, lake_root, first))
    before = by_key(first)
    key = "sync_tracking_datasets/1/10/100"
    # the run's sync is rewritten: the run with its new listing, its other run as it was
    assert sorted(written) == [key, "sync_tracking_datasets/1/10/101"]
    for column in ["manifest_version", "fingerprint", "record_files", "metadata_text"]:
        assert written[key][column] == before[key][column]
    assert written[key]["listing_fingerprint"] != before[key]["listing_fingerprint"]
    assert sorted(f["file_name"] for f in written[key]["files"]) == [
        "metadata.json",
        "notes.txt",
        "records_updated.0.parquet",
    ]


def test_changed_record_files_give_a_new_version_and_inspection(spark, lake_root):
    first = build(spark, lake_root).localCheckpoint()
    write_run(
        lake_root, 1, 10, 100, at(0),
        {"records_updated.1.parquet": [rec("a", payload(v=2)), rec("c", payload(v=1))]},
    )
    row = by_key(build(spark, lake_root, first))["sync_tracking_datasets/1/10/100"]
    assert row["manifest_version"] > by_key(first)["sync_tracking_datasets/1/10/100"][
        "manifest_version"
    ]
    assert [(f["file_name"], f["num_rows"]) for f in row["record_files"]] == [
        ("records_updated.0.parquet", 1),
        ("records_updated.1.parquet", 2),
    ]


def test_a_folder_that_left_the_lake_keeps_its_run_without_files(spark, lake_root):
    first = build(spark, lake_root).localCheckpoint()
    folder = run_dir(lake_root, 1, 20, 200)
    for name in os.listdir(folder):
        (folder / name).unlink()
    folder.rmdir()
    written = build(spark, lake_root, first).localCheckpoint()
    row = by_key(written)["sync_tracking_datasets/1/20/200"]
    before = by_key(first)["sync_tracking_datasets/1/20/200"]
    assert row["files"] == [] and row["listing_fingerprint"] == manifest.EMPTY_LISTING
    assert (row["manifest_version"], row["record_files"]) == (
        before["manifest_version"],
        before["record_files"],
    )
    # and the next build finds nothing new
    table = written.unionByName(first.filter("sync_id is null or sync_id != 20"))
    assert build(spark, lake_root, table).count() == 0


def test_changed_fact_files_are_read_again(spark, lake_root):
    first = build(spark, lake_root).localCheckpoint()
    write_facts(lake_root, 1, "destinations", [{"id": 9, "type": "sf", "name": "New"}], FACT_SCHEMA)
    os.utime(lake_root / "metadata" / "1" / "destinations.parquet", (1, 1))
    written = by_key(build(spark, lake_root, first))
    # the fact folder and the org-level stray folder share the null sync partition
    assert sorted(written) == ["metadata/1//", "sync_tracking_datasets/1//"]
    assert [(f["id"], f["name"]) for f in written["metadata/1//"]["fact_rows"]] == [(9, "New")]
