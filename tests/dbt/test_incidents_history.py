"""Incidents keep their id and status through what happens to a warehouse over time, on
DuckDB (mode `tables`, the hand-written fixture of tests/dbt/project): a new run appended
(an incremental build), a late run that started before runs already loaded, and a
retention prune of the changelog (`prune_sync_logs`). Each step rebuilds the models with
`dbt run` of the incidents and what they are built from, in the same schema, as a
scheduled job would."""

from __future__ import annotations

import json

import duckdb
import pytest
from marts_harness import Build, install_package

INCIDENTS = "sync_logs__incidents"
RUN = ("run", "--select", f"+{INCIDENTS}")
RUN_COLUMNS = (
    "sync_id, sync_run_id, org_id, workspace_id, primary_key, destination, model_name, model_id, "
    "status, error, started_at, finished_at, behavior, split_group, source_id, source_object_id, "
    "destination_id, destination_object_id, num_planned_add, num_planned_change, "
    "num_planned_remove, num_attempted_add, num_attempted_change, num_attempted_remove, "
    "num_succeeded_add, num_succeeded_change, num_succeeded_remove, num_failed_add, "
    "num_failed_change, num_failed_remove, num_invalid, num_redelivered, num_records")
CHANGELOG_COLUMNS = (
    "log_id, org_id, sync_id, sync_run_id, op_type, row_id, status, failed_reason, fields, "
    "split_group, operation, raw_status, payload_changed, batch_started_at, batch_ended_at, "
    "batch_file, logged_at")


def add_run(build: Build, run: str, attempt: str) -> None:
    with duckdb.connect(str(build.duckdb_path)) as connection:
        schema = build.schema
        connection.execute(f"insert into {schema}.fixture_sync_runs ({RUN_COLUMNS}) values {run}")
        connection.execute(
            f"insert into {schema}.fixture_sync_changelog ({CHANGELOG_COLUMNS}) values {attempt}")


def by_id(rows: list[dict]) -> dict[str, dict]:
    return {row["incident_id"]: row for row in rows}


@pytest.fixture(scope="module")
def history(tmp_path_factory):
    build = Build("duckdb", tmp_path_factory.mktemp("incidents_history"))
    install_package()
    build.dbt("seed", "--select", "tag:fixture_tables", "package:sync_logs")
    build.dbt(*RUN)
    steps = {"first": build.rows(INCIDENTS)}

    # 1006: sync 101 runs again, cleanly, on Oct 8 at 12:00 (it was overdue since 06:00)
    add_run(build,
            "(101, 1006, 42, 7, 'user_id', 'Salesforce::Connection', 'High-intent trial users', "
            "611, 'succeeded', null, '2026-10-08 12:00:00', '2026-10-08 12:05:00', 'mirror', null, "
            "5, 511, 8, 811, 1, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1)",
            "('L90', 42, 101, 1006, 'added', 'u9', 'succeeded', null, '{\"email\": \"u9@x.com\"}', "
            "null, 'upsert', 'succeeded', true, '2026-10-08 12:01:00', '2026-10-08 12:02:00', "
            "'records_upsert.0.parquet', '2026-10-08 12:30:00')")
    build.dbt(*RUN)
    steps["appended"] = build.rows(INCIDENTS)

    # 2000: a late run of sync 202, loaded now, that started before all of its runs
    add_run(build,
            "(202, 2000, 42, 7, 'user_id', 'Braze::Connection', 'Churn risk', null, 'succeeded', "
            "null, '2026-09-30 07:00:00', '2026-09-30 07:01:00', 'mirror', null, 5, 512, 9, 911, "
            "1, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1)",
            "('L91', 42, 202, 2000, 'added', 'c9', 'succeeded', null, '{\"score\": 0.1}', null, "
            "'upsert', 'succeeded', true, '2026-09-30 07:00:30', '2026-09-30 07:00:40', "
            "'records_upsert.0.parquet', '2026-09-30 07:30:00')")
    build.dbt(*RUN)
    steps["late"] = build.rows(INCIDENTS)

    with duckdb.connect(str(build.duckdb_path)) as connection:
        steps["changelog_before_prune"] = connection.execute(
            f"select count(*) from {build.schema}.fixture_sync_changelog").fetchone()[0]
    build.dbt_vars["sync_logs_retention_days"] = 2
    build.dbt("run-operation", "sync_logs.prune_sync_logs",
              "--args", json.dumps({"as_of": "2026-10-09 12:00:00"}))
    with duckdb.connect(str(build.duckdb_path)) as connection:
        steps["changelog_after_prune"] = connection.execute(
            f"select count(*) from {build.schema}.fixture_sync_changelog").fetchone()[0]
    build.dbt(*RUN)
    steps["pruned"] = build.rows(INCIDENTS)
    return steps


def test_a_new_run_resolves_open_incidents_under_the_same_id(history):
    first, appended = by_id(history["first"]), by_id(history["appended"])
    assert set(appended) == set(first)
    for incident_id, before in first.items():
        after = appended[incident_id]
        assert (after["sync_id"], after["kind"], after["error_class"], after["opened_at"]) == (
            before["sync_id"], before["kind"], before["error_class"], before["opened_at"])
        if before["status"] == "resolved":
            assert after == before
    # everything sync 101's failed run 1005 opened is resolved by the clean run 1006
    resolved_by_1006 = sorted(
        (r["kind"], r["error_class"], r["status"], r["resolved_at"])
        for r in appended.values() if r["sync_id"] == 101 and r["opened_sync_run_id"] == 1005)
    assert resolved_by_1006 == sorted([
        ("run_failed", None, "resolved", "2026-10-08 12:05:00"),
        ("failed_records", None, "resolved", "2026-10-08 12:05:00"),
        ("slow_run", None, "resolved", "2026-10-08 12:05:00"),
        ("new_error_class", "not_found", "resolved", "2026-10-08 12:05:00"),
        ("new_error_class", "timeout", "resolved", "2026-10-08 12:05:00"),
        ("new_error_class", "destination_server_error", "resolved", "2026-10-08 12:05:00"),
        # overdue since Oct 8 06:00 (3 x its daily interval after Oct 5 06:00), over at 12:00
        ("stale", None, "resolved", "2026-10-08 12:00:00"),
    ])
    # sync 202 did not run: its incidents are as they were
    assert [r for r in appended.values() if r["sync_id"] == 202] == [
        r for r in first.values() if r["sync_id"] == 202]


def test_a_late_run_keeps_the_incidents_it_does_not_change(history):
    appended, late = by_id(history["appended"]), by_id(history["late"])
    # the healthy late run 2000 comes before 2003, which still opens sync 202's incidents
    assert {k: v for k, v in late.items() if k in appended} == appended
    new = sorted((r["sync_id"], r["kind"], r["error_class"], r["opened_sync_run_id"],
                  r["status"], r["opened_at"]) for i, r in late.items() if i not in appended)
    assert new == sorted([
        # with it, sync 202 has three daily intervals: a median of a day, and no run since
        # Oct 3 07:00, so overdue from Oct 6 07:00 (the reference time is Oct 9)
        (202, "stale", None, 2002, "open", "2026-10-06 07:00:00"),
        # and its run 2002 has 3 earlier runs (2000, 2003, 2001), none with a rate-limit
        # error: a baseline (sync_logs_anomaly_min_baseline_runs 3), so its rate_limit is new
        (202, "new_error_class", "rate_limit", 2002, "open", "2026-10-03 07:00:00"),
    ])


def test_a_retention_prune_changes_no_incident(history):
    assert history["changelog_after_prune"] < history["changelog_before_prune"]
    assert by_id(history["pruned"]) == by_id(history["late"])
