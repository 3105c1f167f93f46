"""Retention on PostgreSQL (mode `tables`, the hand-written fixture of tests/dbt/project):
the marts are built, history older than two days before a pinned `as_of` is pruned by the
on-run-end hook (`sync_logs_prune_on_run`), the marts are rebuilt, and the current-state
marts must equal those of the first build while the changelog lost exactly the rows that
tests/dbt/retention_expected.py computes. A dry run (run-operation) deletes nothing; a
relation of disabled syncs (`sync_logs_inactive_syncs_relation`) spares its syncs."""

from __future__ import annotations

import datetime as dt
import json
import re

import pytest
from marts_harness import Build, pg_connect
from retention_expected import expected_doomed

AS_OF = "2026-10-05 12:00:00"
HORIZON = dt.datetime(2026, 10, 3, 12)
CHANGELOG = "fixture_sync_changelog"
SUMMARY = re.compile(r"sync_logs retention: sync (\d+): (would delete|deleted) (\d+) rows in "
                     r"(\d+) runs \((\d+) runs left without rows\)")
CURRENT_STATE = {
    "sync_logs__current_members": None,
    "sync_logs__membership_history": None,
    "sync_logs__audience_events": None,
    "sync_logs__row_lifecycle": {"first_planned_at", "num_runs", "num_changes"},
    "sync_logs__row_operations": ["sync_id", "row_id", "last_attempted_at", "last_sync_run_id",
                                  "last_op_type", "last_status", "last_failed_reason",
                                  "last_succeeded_at"],
}


def project(rows: list[dict], spec) -> list[tuple]:
    if isinstance(spec, list):
        rows = [{k: r[k] for k in spec} for r in rows]
    elif spec:
        rows = [{k: v for k, v in r.items() if k not in spec} for r in rows]
    return sorted((tuple(sorted(r.items())) for r in rows), key=repr)


def summary(build: Build, offset: int) -> dict[int, tuple]:
    text = (build.work / "logs" / "dbt.log").read_text()[offset:]
    return {int(m[1]): (m[2], int(m[3]), int(m[4]), int(m[5])) for m in SUMMARY.finditer(text)}


def log_size(build: Build) -> int:
    log = build.work / "logs" / "dbt.log"
    return len(log.read_text()) if log.exists() else 0


@pytest.fixture(scope="module")
def scenario(tmp_path_factory):
    build = Build("postgres", tmp_path_factory.mktemp("retention_pg"), source="tables").build()
    try:
        before = build.rows(CHANGELOG)
        runs = build.rows("fixture_sync_runs")
        marts = {m: build.rows(m) for m in CURRENT_STATE}
        retention = {"sync_logs_retention_days": 2}

        connection = pg_connect()
        with connection.cursor() as cursor:
            cursor.execute(f"create table {build.schema}.disabled_syncs as select 202 as sync_id")
        connection.close()
        offset = log_size(build)
        build.dbt_vars.update(retention,
                              sync_logs_inactive_syncs_relation=f"{build.schema}.disabled_syncs")
        build.dbt("run-operation", "sync_logs.prune_sync_logs",
                  "--args", json.dumps({"dry_run": True, "as_of": AS_OF}))
        dry_without_202 = summary(build, offset)
        del build.dbt_vars["sync_logs_inactive_syncs_relation"]

        offset = log_size(build)
        build.dbt("run-operation", "sync_logs.prune_sync_logs",
                  "--args", json.dumps({"dry_run": True, "as_of": AS_OF}))
        dry = summary(build, offset)
        after_dry_run = build.rows(CHANGELOG)

        offset = log_size(build)
        build.dbt_vars.update(sync_logs_prune_on_run=True, sync_logs_retention_as_of=AS_OF)
        build.dbt("run", "--select", "stg_sync_logs__sync_runs")
        pruned = summary(build, offset)
        for key in ("sync_logs_prune_on_run", "sync_logs_retention_as_of"):
            del build.dbt_vars[key]
        after_prune = build.rows(CHANGELOG)

        build.dbt("run")
        yield {
            "build": build, "before": before, "runs": runs, "marts": marts, "dry": dry,
            "dry_without_202": dry_without_202, "after_dry_run": after_dry_run,
            "pruned": pruned, "after_prune": after_prune,
        }
    finally:
        build.drop()


@pytest.fixture(scope="module")
def doomed(scenario):
    starts = {(r["sync_id"], r["sync_run_id"]): r["started_at"] for r in scenario["runs"]}
    return expected_doomed(scenario["before"], starts, HORIZON, set())


def test_dry_run_deletes_nothing(scenario):
    assert scenario["after_dry_run"] == scenario["before"]
    assert {s: c[0] for s, c in scenario["dry"].items()} == {101: "would delete",
                                                            202: "would delete"}


def test_a_relation_of_disabled_syncs_spares_them(scenario):
    assert set(scenario["dry_without_202"]) == {101}
    assert scenario["dry_without_202"][101] == scenario["dry"][101]


def test_on_run_end_prune_deletes_exactly_the_old_rows_that_are_not_anchors(scenario, doomed):
    assert doomed
    assert scenario["after_prune"] == [r for r in scenario["before"] if r["log_id"] not in doomed]
    per_sync: dict[int, int] = {}
    for row in scenario["before"]:
        if row["log_id"] in doomed:
            per_sync[row["sync_id"]] = per_sync.get(row["sync_id"], 0) + 1
    assert {s: c[1] for s, c in scenario["pruned"].items()} == per_sync
    assert {s: c[1:] for s, c in scenario["pruned"].items()} == {
        s: c[1:] for s, c in scenario["dry"].items()}


@pytest.mark.parametrize("mart", sorted(CURRENT_STATE))
def test_current_state_marts_are_unchanged_by_pruning(scenario, mart):
    spec = CURRENT_STATE[mart]
    expected = project(scenario["marts"][mart], spec)
    assert expected
    assert project(scenario["build"].rows(mart), spec) == expected
