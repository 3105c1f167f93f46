"""The lake's listing and its classification (`sync_logs.canonical.lake`).

Issue 37, case 3: folders that name one sync (`101` and `0101`) but different runs are not
ambiguous; only two folders naming the same run conflict. Case 4: an object store's listing
(Hadoop's FileSystem API, the path a `s3a://` or `gs://` lake takes) sees empty files and hidden
names, and gives the rows the local listing gives for the same lake.

Issue 36: the listing's fingerprint, taken on the driver, is the one Spark computed before (what
earlier builds stored), however the lake was listed."""

import hashlib
import os
from datetime import datetime

import pytest
from pyspark.sql import functions as F

from handmade_lake import at, payload, rec, run_dir, write_run
from sync_logs.canonical import lake

RUNS = f"file:/lake/{lake.RUN_AREA}"
FACTS = f"file:/lake/{lake.FACT_AREA}"
MOMENT = datetime(2026, 10, 1, 6, 0)


def classified(spark, paths: list[str]) -> dict[str, str | None]:
    """path below the lake -> problem, for files listed at `paths` (below file:/lake/)."""
    rows = [
        (f"file:/lake/{path}", 10, MOMENT, path.split("/", 1)[0]) for path in paths
    ]
    listing = spark.createDataFrame(
        rows, "path string, length bigint, modification_time timestamp, area string"
    )
    files = lake.classify_files(listing).select("path", "problem").collect()
    return {row["path"].removeprefix("file:/lake/"): row["problem"] for row in files}


def test_a_padded_sync_folder_with_its_own_run_conflicts_with_nothing(spark):
    paths = [
        f"{lake.RUN_AREA}/42/{sync}/{run}/{name}"
        for sync, run in [("100", "9001"), ("101", "9011"), ("101", "9012"), ("0101", "9099")]
        for name in ("metadata.json", "records_updated.0.parquet")
    ]
    assert set(classified(spark, paths).values()) == {None}


def test_two_folders_naming_one_run_conflict_and_their_siblings_do_not(spark):
    run_conflict = (
        "2 folders name org_id 42, sync_id 101, sync_run_id 9011 "
        "('42/0101/9011', '42/101/9011'): neither is loaded"
    )
    org_conflict = "2 folders name org_id 7 ('07', '7'): neither is loaded"
    problems = classified(
        spark,
        [
            f"{lake.RUN_AREA}/42/101/9011/metadata.json",
            f"{lake.RUN_AREA}/42/0101/9011/metadata.json",
            f"{lake.RUN_AREA}/42/101/9012/metadata.json",
            f"{lake.RUN_AREA}/042/101/9013/metadata.json",
            f"{lake.FACT_AREA}/7/destinations.parquet",
            f"{lake.FACT_AREA}/07/destinations.parquet",
            f"{lake.FACT_AREA}/42/destinations.parquet",
        ],
    )
    assert problems == {
        f"{lake.RUN_AREA}/42/101/9011/metadata.json": run_conflict,
        f"{lake.RUN_AREA}/42/0101/9011/metadata.json": run_conflict,
        f"{lake.RUN_AREA}/42/101/9012/metadata.json": None,
        f"{lake.RUN_AREA}/042/101/9013/metadata.json": None,
        f"{lake.FACT_AREA}/7/destinations.parquet": org_conflict,
        f"{lake.FACT_AREA}/07/destinations.parquet": org_conflict,
        f"{lake.FACT_AREA}/42/destinations.parquet": None,
    }


@pytest.fixture
def odd_lake(tmp_path):
    """A run with an empty record batch, an empty metadata.json elsewhere, hidden files."""
    write_run(tmp_path, 1, 10, 100, at(0), {"records_updated.0.parquet": [rec("a", payload(v=1))]})
    folder = run_dir(tmp_path, 1, 10, 100)
    (folder / "records_updated.1.parquet").write_bytes(b"")
    (folder / "_SUCCESS").write_bytes(b"")
    (folder / ".records_updated.0.parquet.crc").write_bytes(b"crc")
    empty = run_dir(tmp_path, 1, 10, 101)
    empty.mkdir(parents=True)
    (empty / "metadata.json").write_bytes(b"")
    (tmp_path / lake.RUN_AREA / "1" / "_temporary" / "0").mkdir(parents=True)
    (tmp_path / lake.RUN_AREA / "1" / "_temporary" / "0" / "part-0").write_bytes(b"x")
    return tmp_path


def listed(spark, root) -> list[tuple]:
    frame = lake.list_lake(spark, str(root))
    return sorted(tuple(row) for row in frame.collect())


def test_the_object_store_listing_sees_empty_and_hidden_files(spark, odd_lake, monkeypatch):
    """With the local listing declined (as for an s3a:// or gs:// URI), the lake lists as
    the local listing lists it: every file, its size and its time."""
    local = listed(spark, odd_lake)
    names = {path.rsplit("/", 1)[1]: length for path, length, _, _ in local}
    assert names["records_updated.1.parquet"] == 0 and names["metadata.json"] == 0
    assert {"_SUCCESS", ".records_updated.0.parquet.crc", "part-0"} <= set(names)
    monkeypatch.setattr(lake, "local_listing", lambda location: None)
    assert listed(spark, odd_lake) == local


def test_the_object_store_listing_of_a_missing_area_is_empty(spark, tmp_path, monkeypatch):
    monkeypatch.setattr(lake, "local_listing", lambda location: None)
    assert listed(spark, tmp_path) == []


def test_hadoop_listing_of_a_file_uri_equals_the_local_listing(spark, odd_lake):
    location = f"file:{odd_lake}/{lake.RUN_AREA}"
    assert sorted(lake.hadoop_listing(spark, location)) == sorted(lake.local_listing(location))


def spark_fingerprint(listing, salt: str = "") -> str:
    """The lake fingerprint as Spark computed it before issue 36, which earlier builds stored:
    `path|length|micros` per file, sorted by Spark, hashed after `salt`."""
    entries = listing.select(
        F.concat_ws(
            "|",
            "path",
            F.col("length").cast("string"),
            F.unix_micros("modification_time").cast("string"),
        ).alias("entry")
    )
    digest = hashlib.sha256(salt.encode())
    for row in entries.orderBy("entry").collect():
        digest.update(b"\n" + row["entry"].encode())
    return digest.hexdigest()


# `a.parquet.crc|...` sorts before `a.parquet|...` ('.' < '|') though its path sorts after;
# U+FF5E sorts before U+1F600 in UTF-8, after it in UTF-16.
ODD_NAMES = ["a.parquet", "a.parquet.crc", "ab", "Z", "é.parquet", "\uff5e", "\U0001f600"]


@pytest.fixture
def odd_names_lake(tmp_path):
    folder = run_dir(tmp_path, 1, 10, 100)
    folder.mkdir(parents=True)
    paths = [folder / name for name in ODD_NAMES] + [folder / "_SUCCESS"]
    paths.append(tmp_path / lake.FACT_AREA / "1" / "destinations.parquet")
    paths[-1].parent.mkdir(parents=True)
    for size, path in enumerate(paths, start=1):
        path.write_bytes(b"x" * size)
        moment = 1_790_000_000_123_456_789 + size * 1_000_001  # sub-millisecond parts
        os.utime(path, ns=(moment, moment))
    return tmp_path


@pytest.mark.parametrize("listed_by", ["os.walk", "hadoop", "binaryFile"])
def test_the_fingerprint_is_the_one_spark_computed(spark, odd_names_lake, listed_by, monkeypatch):
    if listed_by != "os.walk":
        monkeypatch.setattr(lake, "local_listing", lambda location: None)
    if listed_by == "binaryFile":
        monkeypatch.setattr(lake, "hadoop_listing", lambda session, location: None)
    entries = lake.lake_entries(spark, str(odd_names_lake))
    assert (entries[lake.RUN_AREA] is None) == (listed_by == "binaryFile")
    listing = lake.list_lake(spark, str(odd_names_lake), entries)
    names = {row["path"].rsplit("/", 1)[1] for row in listing.collect()}
    assert set(ODD_NAMES) | {"destinations.parquet"} <= names
    expected = spark_fingerprint(listing, "sync-logs==1")
    assert lake.listing_fingerprint(listing, "sync-logs==1", entries) == expected
    assert lake.listing_fingerprint(listing, "sync-logs==1") == expected


def test_an_empty_listing_has_the_fingerprint_spark_computed(spark, tmp_path):
    entries = lake.lake_entries(spark, str(tmp_path))
    assert entries == {lake.RUN_AREA: [], lake.FACT_AREA: []}
    listing = lake.list_lake(spark, str(tmp_path), entries)
    expected = hashlib.sha256(b"sync-logs==1").hexdigest()
    assert spark_fingerprint(listing, "sync-logs==1") == expected
    assert lake.listing_fingerprint(listing, "sync-logs==1", entries) == expected
    assert lake.listing_fingerprint(listing, "sync-logs==1") == expected


def test_an_entry_is_its_path_length_and_micros_after_a_newline():
    entries = [("file:/lake/b", 7, 1_500), ("file:/lake/a", 12, 2)]
    expected = hashlib.sha256(b"salt\nfile:/lake/a|12|2000\nfile:/lake/b|7|1500000")
    assert lake.entries_fingerprint(entries, "salt") == expected.hexdigest()
