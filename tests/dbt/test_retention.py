"""Retention on the embedded Spark (parquet, partitioned by sync and run): a generated lake is
built twice, `reference` with every run and `pruned` without each sync's last run. `pruned`
is then pruned (`dbt run-operation sync_logs.prune_sync_logs`, one day of retention before a
pinned `as_of`, one sync listed as inactive), the held-back runs land, and an incremental
`dbt run` follows. The current state (sync_snapshot, current members, membership history,
audience events, row lifecycle, last attempts) must equal the reference's; the changelog must
be the reference's minus exactly the rows that tests/dbt/retention_expected.py says go."""

from __future__ import annotations

import datetime as dt
import json
import re
import shutil
import sys
from pathlib import Path

import pytest
from retention_expected import expected_doomed

from sync_logs_dev.dbt_invoke import run_dbt
from sync_logs_dev.generator import generate_lake

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import handmade_lake  # noqa: E402  (tests/ helper, imported by path like the other tests)

SELECT = ["--select", "+sync_logs__current_members", "+sync_logs__row_lifecycle",
          "+sync_logs__membership_history", "+sync_logs__audience_events",
          "+sync_logs__row_operations", "sync_log"]
# every sync-scoped mart reads the error taxonomy seed (through the run fingerprints)
SEED = ["seed", "--select", "sync_logs_error_categories"]
AS_OF = "2026-10-04 00:00:00"
RETENTION_DAYS = 1
HORIZON = dt.datetime(2026, 10, 3)
SUMMARY = re.compile(r"sync_logs retention: sync (\d+): (would delete|deleted) (\d+) rows in "
                     r"(\d+) runs \((\d+) runs left without rows\)")
CHANGELOG_LOAD_TIME = {"logged_at", "manifest_version"}


def table(spark, schema: str, name: str, drop=frozenset()) -> list[dict]:
    """Rows as dicts, timestamps as UTC text (collect would shift them to the local zone)."""
    frame = spark.table(f"{schema}.{name}")
    frame = frame.selectExpr(*[
        f"cast(`{f.name}` as string) as `{f.name}`"
        if f.dataType.typeName() in ("timestamp", "timestamp_ntz") else f"`{f.name}`"
        for f in frame.schema.fields if f.name not in drop
    ])
    return [row.asDict() for row in frame.collect()]


def ordered(rows: list[dict]) -> list[tuple]:
    return sorted((tuple(sorted(row.items())) for row in rows), key=repr)


def write_superseded_sync(lake: Path) -> None:
    """Sync 9001, upserts of rows a and b in four runs: the second run (2026-10-02 10:00) is
    superseded by the third, also before the horizon, so pruning leaves it without rows."""
    starts = {9001001: dt.datetime(2026, 10, 1, 10), 9001002: dt.datetime(2026, 10, 2, 10),
              9001003: dt.datetime(2026, 10, 2, 12), 9001004: dt.datetime(2026, 10, 3, 10)}
    for number, (run, started) in enumerate(starts.items()):
        started = started.replace(tzinfo=dt.UTC)
        sent, done = started + dt.timedelta(minutes=1), started + dt.timedelta(minutes=2)
        rows = [handmade_lake.rec(row, handmade_lake.payload(email=f"{row}@x.com", n=number),
                                  "upsert", "succeeded", None, sent, done)
                for row in ("a", "b")]
        if run == 9001003:
            rows.append(handmade_lake.rec(None, handmade_lake.payload(email="?"), "upsert",
                                          "NULL", None, sent, done))
        handmade_lake.write_run(lake, 1, 9001, run, started,
                                {"records_upsert.0.parquet": rows}, behavior="upsert")


def log_summary(log: Path, offset: int) -> dict[int, tuple]:
    text = log.read_text()[offset:]
    return {int(m[1]): (m[2], int(m[3]), int(m[4]), int(m[5])) for m in SUMMARY.finditer(text)}


@pytest.fixture(scope="module")
def scenario(spark, tmp_path_factory):
    base = tmp_path_factory.mktemp("retention")
    lake = base / "lake"
    generate_lake(lake, syncs=3, runs_per_sync=6, records=1500, seed=3,
                  manifest_path=base / "manifest.json")
    write_superseded_sync(lake)
    runs = json.loads((base / "manifest.json").read_text())["runs"]
    last = {}
    for run in runs:
        if run["started_at"] > last.get(run["sync_id"], {"started_at": ""})["started_at"]:
            last[run["sync_id"]] = run
    raw = base / "raw"
    shutil.copytree(lake, raw)
    held_back = []
    for run in last.values():
        pattern = f"*/{run['sync_id']}/{run['sync_run_id']}"
        folder = next((raw / "sync_tracking_datasets").glob(pattern))
        held_back.append(folder)
        shutil.rmtree(folder)
    # listed as inactive: the sync that stopped first (all its runs are before the horizon,
    # so it would otherwise lose everything but its anchors)
    inactive = min(last, key=lambda sync_id: last[sync_id]["started_at"])

    for command in (SEED, ["run", *SELECT]):
        run_dbt(command, target_dir=base / "t_ref", dbt_vars={"sync_logs_raw_root": str(lake)},
                env={"SYNC_LOGS_SCHEMA": "retention_ref"})
    pruned_env = {"SYNC_LOGS_SCHEMA": "retention_pruned"}
    target = base / "t_pruned"
    for command in (SEED, ["run", *SELECT]):
        run_dbt(command, target_dir=target, dbt_vars={"sync_logs_raw_root": str(raw)},
                env=pruned_env)
    before = table(spark, "retention_pruned", "sync_changelog")
    run_starts = {(r["sync_id"], r["sync_run_id"]): r["started_at"]
                  for r in table(spark, "retention_pruned", "sync_runs")}
    partitions_before = spark.sql("show partitions retention_pruned.sync_changelog").count()

    retention_vars = {"sync_logs_raw_root": str(raw), "sync_logs_retention_days": RETENTION_DAYS,
                      "sync_logs_inactive_syncs": [inactive],
                      "sync_logs_inactive_after_days": None}
    log = target / "logs" / "dbt.log"

    def operation(args: dict, dbt_vars: dict) -> dict[int, tuple]:
        offset = len(log.read_text()) if log.exists() else 0
        run_dbt(["run-operation", "sync_logs.prune_sync_logs", "--args", json.dumps(args)],
                target_dir=target, dbt_vars=dbt_vars, env=pruned_env)
        return log_summary(log, offset)

    dry = operation({"dry_run": True, "as_of": AS_OF}, retention_vars)
    after_dry_run = table(spark, "retention_pruned", "sync_changelog")
    # no run for 3 days before 2026-10-06: only syncs that ran on 2026-10-03 stay active
    dry_by_age = operation({"dry_run": True, "as_of": "2026-10-06 00:00:00"},
                           {**retention_vars, "sync_logs_inactive_syncs": [],
                            "sync_logs_inactive_after_days": 3})
    pruned = operation({"as_of": AS_OF}, retention_vars)
    after_prune = table(spark, "retention_pruned", "sync_changelog")
    partitions_after = spark.sql("show partitions retention_pruned.sync_changelog").count()
    leftover_tables = [t.name for t in spark.catalog.listTables("retention_pruned")
                       if t.name.startswith("sync_logs_retention")]

    for folder in held_back:
        shutil.copytree(lake / folder.relative_to(raw), folder)
    run_dbt(["run", *SELECT], target_dir=target, dbt_vars={"sync_logs_raw_root": str(raw)},
            env=pruned_env)
    return {
        "inactive": inactive, "runs": runs, "before": before, "run_starts": run_starts,
        "after_dry_run": after_dry_run, "after_prune": after_prune, "dry": dry,
        "dry_by_age": dry_by_age, "pruned": pruned, "partitions": (partitions_before,
                                                                   partitions_after),
        "leftover_tables": leftover_tables,
    }


@pytest.fixture(scope="module")
def doomed(scenario):
    return expected_doomed(scenario["before"], scenario["run_starts"], HORIZON,
                           {scenario["inactive"]})


def test_the_scenario_prunes_something_and_keeps_anchors_before_the_horizon(scenario, doomed):
    old = {r["log_id"] for r in scenario["before"]
           if dt.datetime.fromisoformat(scenario["run_starts"][(r["sync_id"], r["sync_run_id"])])
           < HORIZON and r["sync_id"] != scenario["inactive"]}
    assert doomed and old - doomed, "the horizon must leave old rows to delete and to keep"
    assert any(r["row_id"] is None for r in scenario["before"] if r["log_id"] in doomed)


def test_dry_run_deletes_nothing_and_reports_what_the_prune_deleted(scenario):
    assert ordered(scenario["after_dry_run"]) == ordered(scenario["before"])
    assert scenario["dry"] and set(scenario["dry"]) == set(scenario["pruned"])
    for sync_id, (verb, *counts) in scenario["dry"].items():
        assert verb == "would delete"
        assert scenario["pruned"][sync_id] == ("deleted", *counts)


def test_prune_deletes_exactly_the_old_rows_that_are_not_anchors(scenario, doomed):
    after = {r["log_id"] for r in scenario["after_prune"]}
    before = {r["log_id"] for r in scenario["before"]}
    assert after == before - doomed
    deleted_per_sync: dict[int, int] = {}
    for row in scenario["before"]:
        if row["log_id"] in doomed:
            deleted_per_sync[row["sync_id"]] = deleted_per_sync.get(row["sync_id"], 0) + 1
    assert {s: c[1] for s, c in scenario["pruned"].items()} == deleted_per_sync
    # the kept rows are untouched, column for column
    kept = [r for r in scenario["before"] if r["log_id"] not in doomed]
    assert ordered(scenario["after_prune"]) == ordered(kept)


def test_partitions_left_without_rows_are_dropped_and_working_tables_removed(scenario):
    before, after = scenario["partitions"]
    emptied = sum(c[3] for c in scenario["pruned"].values())
    # 9001002 whole (a, b) and the null identifier of 9001003: 3 rows in 2 runs, 1 emptied
    assert scenario["pruned"][9001] == ("deleted", 3, 2, 1)
    assert after == before - emptied
    assert scenario["leftover_tables"] == []


def test_inactive_syncs_are_untouched(scenario):
    inactive = scenario["inactive"]
    assert inactive not in scenario["pruned"]
    rows = [r for r in scenario["before"] if r["sync_id"] == inactive]
    assert rows
    after = [r for r in scenario["after_prune"] if r["sync_id"] == inactive]
    assert ordered(after) == ordered(rows)


def test_syncs_without_a_recent_run_are_inactive(scenario):
    """as_of 2026-10-06, one day of retention, inactive after 3 days without a run: every
    sync has rows before the horizon, but only those that ran since 2026-10-03 are pruned."""
    recent = {sync_id for (sync_id, _), start in scenario["run_starts"].items()
              if dt.datetime.fromisoformat(start) >= dt.datetime(2026, 10, 3)}
    idle = {sync_id for sync_id, _ in scenario["run_starts"]} - recent
    assert idle and recent
    assert set(scenario["dry_by_age"]) == recent


CURRENT_STATE = {
    "sync_snapshot": None,
    "int_sync_logs__snapshot": None,
    "sync_logs__current_members": None,
    "sync_logs__membership_history": None,
    "sync_logs__audience_events": None,
    # first_planned_at, num_runs and num_changes count history, which pruning removes
    "sync_logs__row_lifecycle": {"first_planned_at", "num_runs", "num_changes"},
    "sync_logs__row_operations": ["sync_id", "row_id", "last_attempted_at", "last_sync_run_id",
                                  "last_op_type", "last_status", "last_failed_reason",
                                  "last_succeeded_at"],
}


@pytest.mark.parametrize("relation", sorted(CURRENT_STATE))
def test_current_state_after_prune_and_incremental_run_equals_the_unpruned_build(
        spark, scenario, relation):
    spec = CURRENT_STATE[relation]
    rows = {schema: table(spark, schema, relation)
            for schema in ("retention_ref", "retention_pruned")}
    for schema, found in rows.items():
        if isinstance(spec, list):
            found = [{k: r[k] for k in spec} for r in found]
        elif spec:
            found = [{k: v for k, v in r.items() if k not in spec} for r in found]
        rows[schema] = ordered(found)
    assert rows["retention_ref"]
    assert rows["retention_pruned"] == rows["retention_ref"]


def test_changelog_after_the_incremental_run_is_the_unpruned_one_minus_the_pruned_rows(
        spark, scenario, doomed):
    reference = table(spark, "retention_ref", "sync_changelog", CHANGELOG_LOAD_TIME)
    pruned = table(spark, "retention_pruned", "sync_changelog", CHANGELOG_LOAD_TIME)
    assert ordered(pruned) == ordered([r for r in reference if r["log_id"] not in doomed])


def test_sync_log_view_follows_the_changelog(spark, scenario, doomed):
    logged = {r["log_id"] for r in table(spark, "retention_pruned", "sync_log")}
    assert logged and not logged & doomed


def test_sync_runs_keep_the_counters_of_pruned_runs(spark, scenario):
    """Counters of every run, pruned ones too, equal the unpruned build's (run_folder and
    fingerprint name the lake folder, which differs between the two builds)."""
    def counters(schema):
        return ordered([{k: v for k, v in row.items()
                         if k in ("sync_id", "sync_run_id") or k.startswith("num_")}
                        for row in table(spark, schema, "sync_runs")])
    assert counters("retention_pruned") == counters("retention_ref")
