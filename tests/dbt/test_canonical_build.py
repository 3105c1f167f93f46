"""End-to-end dbt builds of the canonical models over a generated lake with every bad input.

One module-scoped scenario (dbt builds are the slow part):
  1. the run folders of a generated lake are copied into a raw root in three shuffled batches
     (out of time order: later batches hold runs older than runs already loaded), with a dbt
     build after each (`dbt run` after the first two, `dbt build` with data tests after the last);
  2. a fourth build (`dbt run`) with nothing new must change no row of any table;
  3. a `--full-refresh` run of the final raw root into another schema must equal the
     incremental result row for row, except the load-time columns named in LOAD_TIME_COLUMNS
     (`dbt run`: the data tests checked the incremental result, which it equals).
The bad-input assertions run on the full-refresh schema: the build succeeded, every valid run of
the generator's manifest is loaded with its record count, every bad item is in the quarantine.
"""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path

import pytest

from sync_logs_dev.dbt_invoke import run_dbt
from sync_logs_dev.generator import generate_lake

SELECT = ["--select", "path:models/canonical", "path:tests/data"]
TABLES = [
    "int_sync_logs__run_manifest",
    "int_sync_logs__record_files",
    "int_sync_logs__snapshot",
    "sync_changelog",
    "sync_snapshot",
    "sync_runs",
    "sync_log",
    "source_objects",
    "destinations",
    "destination_objects",
    "sync_logs_quarantine",
]
# Columns that record *when* (or in which build) a row was loaded: they legitimately differ
# between an incremental history and a one-shot rebuild of the same lake.
LOAD_TIME_COLUMNS = {
    "int_sync_logs__run_manifest": [
        "manifest_version", "manifest_updated_at", "listed_at", "lake_fingerprint",
    ],
    "int_sync_logs__record_files": ["manifest_version", "inspected_at"],
    "sync_changelog": ["logged_at", "manifest_version"],
    "sync_log": ["logged_at", "_census_logged_at"],
    "sync_runs": ["manifest_version", "loaded_at"],
}


def run_folders(lake: Path) -> list[Path]:
    """Every folder three levels under sync_tracking_datasets (run folders, bad ones too)."""
    datasets = lake / "sync_tracking_datasets"
    return sorted(p for p in datasets.glob("*/*/*") if p.is_dir())


def copy_tree_item(source: Path, lake: Path, target_root: Path) -> None:
    destination = target_root / source.relative_to(lake)
    if source.is_dir():
        shutil.copytree(source, destination, copy_function=shutil.copy2, dirs_exist_ok=True)
    else:
        destination.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, destination)


def table_rows(spark, schema: str, table: str, exclude: list[str] | None = None) -> list[tuple]:
    frame = spark.table(f"{schema}.{table}")
    columns = [c for c in frame.columns if c not in (exclude or [])]
    rows = frame.select(*columns).collect()
    return sorted((tuple(row) for row in rows), key=repr)


@pytest.fixture(scope="module")
def scenario(spark, tmp_path_factory):
    base = tmp_path_factory.mktemp("canonical_build")
    lake = base / "lake"
    manifest_path = base / "manifest.json"
    generate_lake(
        lake, syncs=4, runs_per_sync=6, records=6000, seed=11, bad_inputs=True,
        manifest_path=manifest_path,
    )
    manifest = json.loads(manifest_path.read_text())
    raw = base / "raw"
    raw.mkdir()
    folders = run_folders(lake)
    random.Random(5).shuffle(folders)
    batches = [folders[i::3] for i in range(3)]
    # Everything that is not under a run-level folder arrives with the first batch.
    in_folders = {p for f in folders for p in [f, *f.rglob("*")]}
    others = [p for p in lake.rglob("*") if p.is_file() and p not in in_folders]

    incremental = "canon_incr"
    env = {"SYNC_LOGS_SCHEMA": incremental}
    dbt_vars = {"sync_logs_raw_root": str(raw), "sync_logs_all_data_tests": True}
    loaded_per_batch = []
    for number, batch in enumerate(batches):
        for item in batch + (others if number == 0 else []):
            copy_tree_item(item, lake, raw)
        # `dbt run` for the first batches, `dbt build` (models + data tests) for the last: the
        # data tests are the slow part of a build on the embedded Spark.
        command = "build" if number == len(batches) - 1 else "run"
        run_dbt([command, *SELECT], target_dir=base / "t_incr", dbt_vars=dbt_vars, env=env)
        loaded_per_batch.append(
            {
                (row["sync_id"], row["sync_run_id"])
                for row in spark.table(f"{incremental}.int_sync_logs__runs_to_load").collect()
            }
        )
    before = {t: table_rows(spark, incremental, t) for t in TABLES}
    run_dbt(["run", *SELECT], target_dir=base / "t_incr", dbt_vars=dbt_vars, env=env)
    after = {t: table_rows(spark, incremental, t) for t in TABLES}
    idle_load = spark.table(f"{incremental}.int_sync_logs__runs_to_load").count()

    full = "canon_full"
    run_dbt(
        ["run", "--full-refresh", *SELECT],
        target_dir=base / "t_full",
        dbt_vars={**dbt_vars, "sync_logs_allow_history_rebuild": True},
        env={"SYNC_LOGS_SCHEMA": full},
    )
    return {
        "manifest": manifest,
        "batches": batches,
        "lake": lake,
        "loaded_per_batch": loaded_per_batch,
        "before": before,
        "after": after,
        "idle_load": idle_load,
        "incremental": incremental,
        "full": full,
    }


def test_batches_arrive_out_of_time_order(scenario):
    """The scenario really has late runs: a batch holds a run older than one loaded before."""
    started = {
        (run["sync_id"], run["sync_run_id"]): run["started_at"]
        for run in scenario["manifest"]["runs"]
    }
    late = 0
    seen: dict[int, str] = {}
    for loaded in scenario["loaded_per_batch"]:
        for sync_id, run_id in loaded:
            if sync_id in seen and started.get((sync_id, run_id), "9") < seen[sync_id]:
                late += 1
        for sync_id, run_id in loaded:
            if (sync_id, run_id) in started:
                seen[sync_id] = max(seen.get(sync_id, ""), started[(sync_id, run_id)])
    assert late > 0


def test_each_build_loads_only_the_new_runs(scenario):
    """runs_to_load of each batch's build holds exactly that batch's valid runs."""
    valid = {(r["sync_id"], r["sync_run_id"]) for r in scenario["manifest"]["runs"]}
    lake = scenario["lake"]
    for batch, loaded in zip(scenario["batches"], scenario["loaded_per_batch"], strict=True):
        ids = set()
        for folder in batch:
            org, sync, run = folder.relative_to(lake / "sync_tracking_datasets").parts
            if sync.isdigit() and run.isdigit() and (int(sync), int(run)) in valid:
                ids.add((int(sync), int(run)))
        assert loaded == ids
    assert scenario["idle_load"] == 0


def test_second_build_without_new_data_changes_no_row(scenario):
    for table in TABLES:
        assert scenario["after"][table] == scenario["before"][table], table


@pytest.mark.parametrize("table", TABLES)
def test_incremental_batches_equal_full_refresh(spark, scenario, table):
    exclude = LOAD_TIME_COLUMNS.get(table, [])
    incremental = table_rows(spark, scenario["incremental"], table, exclude)
    full = table_rows(spark, scenario["full"], table, exclude)
    assert len(incremental) == len(full)
    assert incremental == full


def test_every_valid_run_is_loaded_with_its_records(spark, scenario):
    runs = {
        (row["sync_id"], row["sync_run_id"]): row
        for row in spark.table(f"{scenario['full']}.sync_runs").collect()
    }
    bad_rows: dict[tuple, int] = {}
    for item in scenario["manifest"]["bad_items"]:
        if item["expect"] == "quarantine_file":
            key = (item["sync_id"], item["sync_run_id"])
            bad_rows[key] = bad_rows.get(key, 0) + 1
    extra_rows: dict[tuple, int] = {}
    for item in scenario["manifest"]["bad_items"]:
        if item["expect"] in ("invalid_row", "valid") and item["kind"].startswith("payload"):
            key = (item["sync_id"], item["sync_run_id"])
            extra_rows[key] = extra_rows.get(key, 0) + 1
    for run in scenario["manifest"]["runs"]:
        key = (run["sync_id"], run["sync_run_id"])
        assert key in runs, key
        row = runs[key]
        assert row["num_records"] == run["records"] + extra_rows.get(key, 0), key
        assert row["num_quarantined_files"] == bad_rows.get(key, 0), key
        assert row["behavior"] == run["behavior"], key
        assert row["status"] == run["status"], key


def test_every_bad_item_is_in_the_quarantine(spark, scenario):
    quarantine = spark.table(f"{scenario['full']}.sync_logs_quarantine").collect()
    hidden = ("_", ".")  # Spark's listing skips these names, as every Spark reader does
    for item in scenario["manifest"]["bad_items"]:
        name = item["path"].rsplit("/", 1)[-1]
        if item["expect"] == "valid" or (item["expect"] == "stray" and name.startswith(hidden)):
            continue
        path = item["path"]
        if item["expect"] == "invalid_row":
            matches = [
                q for q in quarantine
                if q["item_type"] == "records" and q["sync_run_id"] == item["sync_run_id"]
            ]
        else:
            matches = [
                q for q in quarantine
                if q["path"].endswith("/" + path) or ("/" + path + "/") in q["path"]
            ]
        assert matches, item
        expected_severity = "warning" if item["expect"] == "invalid_row" else "not_loaded"
        assert all(q["severity"] == expected_severity for q in matches), item
        assert all(q["reason"] for q in matches), item


def test_invalid_payloads_are_loaded_with_null_fields(spark, scenario):
    changelog = spark.table(f"{scenario['full']}.sync_changelog")
    for item in scenario["manifest"]["bad_items"]:
        if item["kind"] not in ("payload_not_object", "payload_empty", "payload_large"):
            continue
        rows = changelog.filter(
            (changelog.sync_run_id == item["sync_run_id"])
            & (changelog.row_id == item["identifier"])
        ).collect()
        assert len(rows) == 1, item
        if item["kind"] == "payload_large":
            assert rows[0]["payload_problem"] is None
            assert len(rows[0]["fields"]) == item["payload_bytes"]
        else:
            assert rows[0]["fields"] is None
            assert rows[0]["payload_problem"] is not None
