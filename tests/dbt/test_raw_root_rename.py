"""The lake's var was renamed from `raw_root` to `sync_logs_raw_root`: a project that still sets
the old name builds from it, with one deprecation warning per build; when both are set, the new
name wins and nothing is printed. Each lake holds one run of its own sync, so the run in the
lake's inventory tells which lake was read."""

from __future__ import annotations

from handmade_lake import at, write_run
from sync_logs_dev.dbt_invoke import run_dbt

WARNING = "var raw_root is deprecated: rename var raw_root to sync_logs_raw_root"


def build(spark, work, schema: str, dbt_vars: dict) -> tuple[set[str], str]:
    """The run folders in the inventory that `dbt run` of the manifest model wrote, and the
    invocation's log."""
    run_dbt(
        ["run", "--select", "int_sync_logs__run_manifest"],
        target_dir=work,
        dbt_vars=dbt_vars,
        env={"SYNC_LOGS_SCHEMA": schema},
    )
    rows = spark.table(f"{schema}.int_sync_logs__run_manifest").select("folder_key").collect()
    return {row.folder_key for row in rows}, (work / "logs" / "dbt.log").read_text()


def lake(path, sync: int):
    write_run(path, 1, sync, 100, at(0))
    return path


def test_the_old_name_is_read_with_a_warning(spark, tmp_path):
    old = lake(tmp_path / "old_lake", 10)
    folders, log = build(spark, tmp_path / "work", "raw_root_old", {"raw_root": str(old)})
    assert folders == {"sync_tracking_datasets/1/10/100"}
    assert log.count(WARNING) == 1


def test_the_new_name_wins_silently_when_both_are_set(spark, tmp_path):
    old, new = lake(tmp_path / "old_lake", 10), lake(tmp_path / "new_lake", 20)
    both = {"raw_root": str(old), "sync_logs_raw_root": str(new)}
    folders, log = build(spark, tmp_path / "work", "raw_root_both", both)
    assert folders == {"sync_tracking_datasets/1/20/100"}
    assert "raw_root is deprecated" not in log
