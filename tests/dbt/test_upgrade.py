"""Upgrade without `--full-refresh`: a warehouse that release 0.1.0 (commit e7d6066) built is
brought to this release's layout by the next build, keeps its history, and then equals a fresh
build of this release, table by table.

The 0.1.0 warehouse is tests/data/warehouse_0_1_0/: the tables the release built from
`release_lake`, exported (`release_warehouse`), so that a clone without the history tests the
upgrade too. When the clone holds the commit, the release builds the same lake again (its files
from git, its own library, in a subprocess running beside the builds below) and the fixture
must equal what it built. Between the release's build and the upgrade the lake gains a run (the
build continues incrementally) and loses a sync's only run folder (its history must stay).
Builds of this release: the upgrade, the build after it, and a fresh build of the final lake."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pytest
from build_comparison import BUILD_TIME_COLUMNS, COMPARED_TABLES, comparable_rows
from release_warehouse import exported_tables, load_tables, read_exported

from handmade_lake import (
    RECORD_SCHEMA,
    at,
    payload,
    rec,
    run_dir,
    upsert,
    write_batch,
    write_facts,
    write_run,
)
from sync_logs import __version__
from sync_logs_dev.checkout import checkout_dir
from sync_logs_dev.dbt_invoke import run_dbt

RELEASE = "e7d6066"  # 0.1.0
FIXTURE = Path(__file__).resolve().parents[1] / "data" / "warehouse_0_1_0"
UPGRADED, FRESH = "upgrade_0_1_0", "upgrade_fresh"
GONE_SYNC = 13  # its only run folder leaves the lake after the release's build
GONE = ("sync_id", GONE_SYNC)
RECORDS = "records_updated.0.parquet"
# Every file of the lake has this modification time, so that a lake written again lists as
# the one the fixture was built from.
LAKE_TIME = at(0).timestamp()
NAMED = pa.schema([("id", pa.int64()), ("type", pa.string()), ("name", pa.string())])
# Batch times as text: a record whose time is not one fills the columns added after 0.1.0
# (`sync_changelog.timestamp_problem`, `sync_runs.num_timestamp_errors`).
TEXT_TIMES = pa.schema(
    [
        field.with_type(pa.string()) if field.name.startswith("batch_") else field
        for field in RECORD_SCHEMA
    ]
)


def release_lake(lake: Path) -> None:
    """Sync 10: two runs (a rejection, a change, a delete, a time that is not one). Sync 11:
    one run. Sync 12: an invalid run folder. Sync 13: one run, pointing at sync 10's objects.
    A stray file and a fact file."""
    write_run(lake, 1, 10, 101, at(0), {
        RECORDS: [
            upsert("a", 1, 1),
            upsert("b", 1, 1, status="rejected", status_message="bad email"),
            upsert("c", 1, 1),
        ],
    })  # fmt: skip
    write_run(lake, 1, 10, 102, at(60), {
        RECORDS: [upsert("a", 2, 61), upsert("b", 1, 61)],
        "records_deleted.0.parquet": [
            rec("c", payload(v=1), operation="delete", started=at(62), ended=at(63))
        ],
    })  # fmt: skip
    text_times = rec("e", payload(v=1), started="not a time", ended="2026-10-01T07:04:00Z")
    write_batch(run_dir(lake, 1, 10, 102), "records_updated.1.parquet", [text_times], TEXT_TIMES)
    write_run(lake, 1, 11, 111, at(0), {RECORDS: [upsert("x", 1, 1), upsert("y", 1, 1)]})
    objects_of_sync_10 = {
        "source": {"type": "snowflake", "id": 5, "object_id": 510, "object_name": "src"},
        "destination": {
            "type": "Salesforce::Connection",
            "id": 8,
            "object_id": 810,
            "object_type": "Salesforce::ObjectTypes::Contact",
            "object_name": "Contact",
        },
    }
    write_run(lake, 1, GONE_SYNC, 131, at(0), {RECORDS: [upsert("g", 1, 1)]}, **objects_of_sync_10)
    write_run(lake, 1, 12, 121, at(0), meta="{not json")
    (lake / "sync_tracking_datasets" / "1" / "stray.txt").write_text("stray", encoding="utf-8")
    destination = {"id": 8, "type": "Salesforce::Connection", "name": "SF"}
    write_facts(lake, 1, "destinations", [destination], NAMED)
    set_times(lake)


def later_lake(lake: Path) -> None:
    """After the release's build: sync 10 gains run 103, sync 13's run folder leaves."""
    write_run(lake, 1, 10, 103, at(120), {RECORDS: [upsert("a", 3, 121), upsert("d", 1, 121)]})
    for path in run_dir(lake, 1, GONE_SYNC, 131).iterdir():
        path.unlink()
    run_dir(lake, 1, GONE_SYNC, 131).rmdir()
    run_dir(lake, 1, GONE_SYNC, 131).parent.rmdir()
    set_times(lake)


def set_times(lake: Path) -> None:
    for path in lake.rglob("*"):
        if path.is_file():
            os.utime(path, (LAKE_TIME, LAKE_TIME))


def has_release() -> bool:
    found = subprocess.run(
        ["git", "cat-file", "-e", f"{RELEASE}^{{commit}}"],
        cwd=checkout_dir(), capture_output=True, check=False,
    )  # fmt: skip
    return found.returncode == 0


def start_release_build(lake: Path, work: Path) -> tuple[subprocess.Popen, Path]:
    """The release's files (git archive of the commit), its canonical tables built from `lake`
    by its own library in a subprocess (started, not awaited), exported to the returned folder
    (`release_warehouse`)."""
    release = work / "release"
    release.mkdir()
    archive = subprocess.run(
        ["git", "archive", RELEASE], cwd=checkout_dir(), capture_output=True, check=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(release)], input=archive, check=True)
    export = work / "release_export"
    script = Path(__file__).with_name("release_warehouse.py")
    env = {**os.environ, "PYTHONPATH": str(release / "python")}
    for variable in ("SYNC_LOGS_WAREHOUSE_DIR", "SYNC_LOGS_SCHEMA"):
        env.pop(variable, None)
    process = subprocess.Popen(
        [sys.executable, str(script), str(release), str(lake), str(work / "release_work"),
         str(export)],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    return process, export


def finish_release_build(process: subprocess.Popen, export: Path) -> Path:
    output, _ = process.communicate()
    if process.returncode != 0:
        raise RuntimeError(f"the release's build failed:\n{output[-5000:]}")
    return export


def build(lake: Path, work: Path, schema: str) -> None:
    run_dbt(
        ["run", "--select", "path:models/canonical"],
        target_dir=work / schema,
        dbt_vars={"sync_logs_raw_root": str(lake)},
        env={"SYNC_LOGS_SCHEMA": schema},
    )


@pytest.fixture(scope="module")
def upgraded(spark, tmp_path_factory) -> dict[str, Path | None]:
    """The fixture's 0.1.0 warehouse loaded into `upgrade_0_1_0` and built again by this
    release after the lake changed (twice: the second build finds the stamp and nothing new),
    and a fresh build of the changed lake into
    `upgrade_fresh`; meanwhile, when the clone has the commit, the release's own build of the
    same first lake (in a subprocess, exported: `release`)."""
    work = tmp_path_factory.mktemp("upgrade")
    release = None
    if has_release():
        release_lake(work / "release_lake")
        release = start_release_build(work / "release_lake", work)
    lake = work / "lake"
    release_lake(lake)
    later_lake(lake)
    try:
        load_tables(spark, FIXTURE, UPGRADED, lake)
        build(lake, work, UPGRADED)
        build(lake, work, UPGRADED)  # stamped: nothing to upgrade, nothing new
        build(lake, work, FRESH)
    except BaseException:
        if release:
            release[0].kill()
            release[0].wait()
        raise
    return {"lake": lake, "release": release and finish_release_build(*release)}


@pytest.mark.parametrize("table", COMPARED_TABLES)
def test_upgraded_warehouse_equals_a_fresh_build(spark, upgraded, table):
    assert comparable_rows(spark, UPGRADED, table, GONE) == comparable_rows(
        spark, FRESH, table, GONE
    )


@pytest.mark.parametrize("table", ["sync_changelog", "sync_runs", "int_sync_logs__snapshot"])
def test_history_of_a_run_that_left_the_lake_is_kept(spark, upgraded, table):
    (stored,) = [entry for entry in exported_tables(FIXTURE) if entry["name"] == table]
    released = read_exported(spark, FIXTURE, stored, upgraded["lake"])
    kept = spark.table(f"{UPGRADED}.{table}").select(*released.columns)

    def gone_sync(frame) -> list[tuple]:
        return sorted(tuple(row) for row in frame.where(f"sync_id = {GONE_SYNC}").collect())

    assert gone_sync(released), "the release loaded the sync"
    assert gone_sync(kept) == gone_sync(released)


def test_version_stamp(spark, upgraded):
    for schema in (UPGRADED, FRESH):
        rows = spark.table(f"{schema}.sync_logs_package_state").collect()
        assert [row["package_version"] for row in rows] == [__version__]


def test_fixture_is_what_the_release_builds(spark, upgraded):
    """tests/data/warehouse_0_1_0/ equals the release's build of the same lake, but for the
    build-time columns. Write it again with
    `PYTHONPATH=python:tests python tests/dbt/test_upgrade.py`."""
    built_export = upgraded["release"]
    if built_export is None:
        pytest.skip(f"this clone lacks commit {RELEASE} (0.1.0): the fixture stands for it")
    fixture, built = exported_tables(FIXTURE), exported_tables(built_export)
    assert fixture == built
    for table in built:
        frames = [
            read_exported(spark, export, table, upgraded["lake"])
            for export in (FIXTURE, built_export)
        ]
        columns = [column for column in frames[0].columns if column not in BUILD_TIME_COLUMNS]
        fixture_rows, built_rows = (
            sorted(map(tuple, frame.select(*columns).collect()), key=repr) for frame in frames
        )
        assert fixture_rows == built_rows, table


if __name__ == "__main__":  # writes tests/data/warehouse_0_1_0/ again from the release
    import shutil
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        lake = Path(folder) / "lake"
        release_lake(lake)
        shutil.rmtree(FIXTURE, ignore_errors=True)
        shutil.copytree(finish_release_build(*start_release_build(lake, Path(folder))), FIXTURE)
