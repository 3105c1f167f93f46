"""A build with nothing new: with an empty plan, the incremental tables' functions return no rows
and compute nothing else (every other input here fails when it is evaluated). Their rows are an
empty local relation once optimised, which the sparksession plugin writes nothing for."""

import os

import pytest
from pyspark.sql import functions as F

from handmade_lake import at, write_run
from sync_logs.canonical import changelog, lake_root, payloads, runs, snapshot
from sync_logs.canonical import lake as lake_listing
from sync_logs.canonical import manifest as manifest_rules
from sync_logs.canonical.plan import PLANNED_COLUMNS

PLAN_SCHEMA = (
    "sync_id bigint, sync_run_id bigint, sync_run_started_at timestamp, action string, "
    "is_superseded boolean, cutoff_started_at timestamp, cutoff_sync_run_id bigint"
)


@pytest.fixture(scope="module")
def empty_plan(spark):
    plan = spark.createDataFrame([], PLAN_SCHEMA)
    assert plan.columns == PLANNED_COLUMNS
    return plan


@pytest.fixture(scope="module")
def failing(spark):
    """A frame that fails the query evaluating it, whatever columns are asked of it."""
    return spark.range(1).select(F.raise_error(F.lit("evaluated")).alias("never"))


def known_empty(frame) -> bool:
    """The plugin's test (py_create_temp_view.sql): empty before anything runs."""
    optimized = frame._jdf.queryExecution().optimizedPlan()
    return optimized.getClass().getSimpleName() == "LocalRelation" and optimized.data().isEmpty()


def previous_table(spark, name: str, schema: str) -> str:
    spark.createDataFrame([], schema).createOrReplaceTempView(name)
    return name


def test_the_failing_frame_fails_when_evaluated(failing):
    with pytest.raises(Exception, match="evaluated"):
        failing.collect()


def test_changelog_writes_nothing(spark, empty_plan, failing):
    previous = previous_table(spark, "idle_changelog", "sync_id bigint, row_id string")
    rules = payloads.payload_rules([], [], None, None)
    result = changelog.sync_changelog(
        spark, rules, runs=failing, record_files=failing, plan=empty_plan, previous=previous
    )
    assert result.columns == ["sync_id", "row_id"]
    assert known_empty(result)


def test_snapshot_writes_nothing(spark, empty_plan, failing):
    previous = spark.table(
        previous_table(
            spark,
            "idle_snapshot",
            ", ".join(f"{column} string" for column in snapshot.SNAPSHOT_COLUMNS),
        )
    )
    result = snapshot.snapshot_state(
        failing, failing.withColumn("is_valid", F.lit(True)), empty_plan, failing, previous
    )
    assert result.columns == snapshot.SNAPSHOT_COLUMNS
    assert known_empty(result)


def test_runs_write_nothing(spark, empty_plan, failing):
    previous = spark.table(previous_table(spark, "idle_runs", "sync_id bigint, sync_run_id bigint"))
    result = runs.sync_runs(
        failing.withColumn("is_valid", F.lit(True)), failing, failing, empty_plan, previous
    )
    assert known_empty(result)


def test_manifest_writes_nothing_when_no_run_folder_changed(spark, tmp_path):
    for run in (100, 101):
        write_run(tmp_path, 1, 10, run, at(run))
    listing = lake_listing.lake_files(spark, str(tmp_path))
    first = manifest_rules.build_manifest(spark, listing, None).localCheckpoint()
    assert first.count() == 2

    assert known_empty(manifest_rules.build_manifest(spark, listing, first))
    write_run(tmp_path, 1, 10, 102, at(102))
    relisted = lake_listing.lake_files(spark, str(tmp_path))
    changed = manifest_rules.build_manifest(spark, relisted, first)
    # the new run, and the unchanged rows of the sync it touches
    assert sorted(row["sync_run_id"] for row in changed.collect()) == [100, 101, 102]


def test_manifest_classifies_nothing_when_the_lake_lists_as_before(spark, tmp_path, failing):
    write_run(tmp_path, 1, 10, 100, at(100))
    first = manifest_rules.current_manifest(spark, str(tmp_path), None).localCheckpoint()
    stored = first.collect()[0]["lake_fingerprint"]
    assert stored == lake_listing.listing_fingerprint(lake_listing.list_lake(spark, str(tmp_path)))
    # the listing is not classified: `failing` stands for it
    assert known_empty(manifest_rules.build_manifest(spark, failing, first, stored))
    assert known_empty(manifest_rules.current_manifest(spark, str(tmp_path), first))


def test_a_listing_made_on_the_driver_is_checked_and_fingerprinted_there(spark, tmp_path, failing):
    write_run(tmp_path, 1, 10, 100, at(100))
    entries = lake_listing.lake_entries(spark, str(tmp_path))
    listing = lake_listing.list_lake(spark, str(tmp_path), entries)
    # `failing` stands for the listing: nothing asks Spark
    lake_root.require_lake(spark, str(tmp_path), failing, None, entries)
    fingerprint = lake_listing.listing_fingerprint(failing, "sync-logs==1", entries)
    assert fingerprint == lake_listing.listing_fingerprint(listing, "sync-logs==1")


@pytest.mark.parametrize("change", ["new file", "touched", "grown", "hidden file", "rules"])
def test_lake_fingerprint_follows_every_file_and_the_rules(spark, tmp_path, change):
    write_run(tmp_path, 1, 10, 100, at(100))
    folder = tmp_path / "sync_tracking_datasets" / "1" / "10" / "100"

    def fingerprint(rules: str = "sync-logs==1") -> str:
        return lake_listing.listing_fingerprint(lake_listing.list_lake(spark, str(tmp_path)), rules)

    before = fingerprint()
    assert fingerprint() == before
    if change == "new file":
        write_run(tmp_path, 1, 10, 101, at(101))
    elif change == "touched":
        os.utime(folder / "metadata.json", (1, 1))
    elif change == "grown":  # same modification time, one byte more
        meta = folder / "metadata.json"
        times = meta.stat()
        meta.write_text(meta.read_text(encoding="utf-8") + " ", encoding="utf-8")
        os.utime(meta, ns=(times.st_atime_ns, times.st_mtime_ns))
    elif change == "hidden file":
        (folder / "_SUCCESS").write_text("")
    after = fingerprint("sync-logs==2" if change == "rules" else "sync-logs==1")
    assert after != before
