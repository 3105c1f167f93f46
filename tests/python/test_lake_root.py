"""A lake root that is not a lake fails the first model, naming sync_logs_raw_root and the fix;
an empty run area, and a lake whose runs were all removed, build. Local roots and roots that
Spark's file source lists (an object store's URI; here a file: URI sent down the same path)
alike, listed on the driver or, without a JVM, by Spark's binaryFile source."""

import pytest

from handmade_lake import at, write_run
from sync_logs.canonical import lake, lake_root
from sync_logs.canonical import manifest as manifest_rules

SET_IT = (
    "set var sync_logs_raw_root to the folder or URI of the lake, the one that holds "
    "sync_tracking_datasets/"
)


@pytest.fixture(params=["local", "object store", "object store without a JVM"])
def as_uri(request, monkeypatch):
    """How a test names a folder: a plain path, or a file: URI listed and checked by Spark's
    file source, as an s3a:// or gs:// root is (without a JVM: as on Spark Connect)."""
    if request.param == "local":
        return str
    for module in (lake, lake_root):
        monkeypatch.setattr(module, "local_folder", lambda location: None)
    if request.param == "object store without a JVM":
        monkeypatch.setattr(lake, "hadoop_filesystem", lambda session, location: None)
    return lambda path: path.as_uri()


def build(spark, root: str, previous=None):
    return manifest_rules.current_manifest(spark, root, previous).localCheckpoint()


@pytest.mark.parametrize("raw_root", ["", "  ", None])
def test_an_empty_raw_root_is_refused(raw_root):
    with pytest.raises(ValueError) as failure:
        lake_root.lake_root(raw_root)
    assert str(failure.value) == (
        f"var sync_logs_raw_root is empty: {SET_IT} (in your dbt_project.yml `vars:`, or "
        "`--vars '{sync_logs_raw_root: s3a://bucket/lake}'`)"
    )


def test_a_raw_root_that_does_not_exist_is_refused(spark, tmp_path, as_uri):
    root = as_uri(tmp_path / "no_such_lake")
    with pytest.raises(ValueError) as failure:
        build(spark, root)
    message = str(failure.value)
    assert message.startswith(f"var sync_logs_raw_root is '{root}'")
    assert "which does not exist where the models run" in message
    assert SET_IT in message


def lake_with_facts_only(tmp_path):
    """A lake folder holding a fact file and no run area (a fact file is listed, never read)."""
    facts = tmp_path / "lake" / "metadata" / "1"
    facts.mkdir(parents=True)
    (facts / "destinations.parquet").write_bytes(b"listed, not read")
    return tmp_path / "lake"


def test_a_raw_root_without_the_run_area_is_refused(spark, tmp_path, as_uri):
    lake_with_facts_only(tmp_path)
    root = as_uri(tmp_path / "lake")
    with pytest.raises(ValueError) as failure:
        build(spark, root)
    message = str(failure.value)
    assert message.startswith(f"var sync_logs_raw_root is '{root}'")
    assert "which holds no sync_tracking_datasets/ folder" in message
    assert SET_IT in message
    assert "A lake without runs yet is an empty sync_tracking_datasets/ folder." in message


def test_a_raw_root_naming_the_run_area_itself_names_its_parent(spark, tmp_path):
    write_run(tmp_path / "lake", 1, 10, 100, at(100))
    with pytest.raises(ValueError, match=f"use its parent, '{tmp_path / 'lake'}'"):
        build(spark, str(tmp_path / "lake" / "sync_tracking_datasets"))


def passes(spark, root: str, previous=None) -> bool:
    """`require_lake` passes, given the listing's driver entries and, as Spark asks it, not."""
    entries = lake.lake_entries(spark, root)
    listing = lake.list_lake(spark, root, entries)
    lake_root.require_lake(spark, root, listing, previous, entries)
    lake_root.require_lake(spark, root, listing, previous)
    return True


def test_an_empty_run_area_is_an_empty_lake(spark, tmp_path, as_uri):
    (tmp_path / "lake" / "sync_tracking_datasets").mkdir(parents=True)
    assert passes(spark, as_uri(tmp_path / "lake"))


def test_a_lake_whose_runs_were_all_removed_still_builds(spark, tmp_path, as_uri):
    """As on an object store, the run area went with the last run; the warehouse's manifest
    lists runs."""
    lake_with_facts_only(tmp_path)
    previous = spark.createDataFrame(
        [("metadata/1//",), ("sync_tracking_datasets/1/10/100",)], "folder_key string"
    )
    assert passes(spark, as_uri(tmp_path / "lake"), previous)
    with pytest.raises(ValueError, match="holds no sync_tracking_datasets/ folder"):
        passes(spark, as_uri(tmp_path / "lake"), previous.limit(1))
