"""0.1.0's run manifest read in the current layout (`sync_logs.canonical.upgrade`), on the
tables 0.1.0 built (tests/data/warehouse_0_1_0/): a folder key, a listing no listing matches,
no fingerprint (the run is parsed and reloaded when its folder is still in the lake), and the
record batches 0.1.0 inspected, on valid runs only."""

from pathlib import Path

from sync_logs.canonical import upgrade
from sync_logs.canonical.manifest import EMPTY_LISTING, OUTPUT_COLUMNS

FIXTURE = Path(__file__).resolve().parents[1] / "data" / "warehouse_0_1_0"


def test_manifest_of_0_1_0_in_the_current_layout(spark):
    previous = spark.read.parquet(str(FIXTURE / "int_sync_logs__run_manifest"))
    record_files = spark.read.parquet(str(FIXTURE / "int_sync_logs__record_files"))
    assert "folder_key" not in previous.columns

    rows = upgrade.upgraded_manifest(previous, record_files)
    assert set(OUTPUT_COLUMNS) <= set(rows.columns)
    got = {
        row["folder_key"]: row
        for row in rows.select(
            "folder_key", "area", "fingerprint", "listing_fingerprint", "manifest_version",
            "record_files",
        ).collect()
    }  # fmt: skip
    runs = ["10/101", "10/102", "11/111", "12/121", "13/131"]
    assert sorted(got) == [f"sync_tracking_datasets/1/{run}" for run in runs]
    assert {row["area"] for row in got.values()} == {"sync_tracking_datasets"}
    assert {row["fingerprint"] for row in got.values()} == {None}
    assert {row["listing_fingerprint"] for row in got.values()} == {upgrade.UPGRADED_LISTING}
    assert upgrade.UPGRADED_LISTING != EMPTY_LISTING
    assert all(row["manifest_version"] is not None for row in got.values())

    def batches(run: str) -> list[tuple] | None:
        files = got[f"sync_tracking_datasets/1/{run}"]["record_files"]
        return files and [(f["file_name"], f["is_loaded"], f["missing_columns"]) for f in files]

    assert batches("10/101") == [("records_updated.0.parquet", True, None)]
    assert [name for name, _, _ in batches("10/102")] == [
        "records_deleted.0.parquet", "records_updated.0.parquet", "records_updated.1.parquet",
    ]  # fmt: skip
    assert batches("11/111") == batches("13/131") == [("records_updated.0.parquet", True, None)]
    assert batches("12/121") is None  # invalid: never inspected


def test_current_layout_is_read_as_it_is(spark):
    spark.sql("create schema if not exists upgrade_unit")
    spark.createDataFrame([("k", 1)], "folder_key string, sync_id bigint").write.mode(
        "overwrite"
    ).saveAsTable("upgrade_unit.int_sync_logs__run_manifest")
    stored = upgrade.stored_manifest(spark, "upgrade_unit.int_sync_logs__run_manifest")
    assert stored.columns == ["folder_key", "sync_id"]
