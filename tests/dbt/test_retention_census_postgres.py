"""Retention in mode `census` on PostgreSQL (issue 37, deliverable 5): `prune_sync_logs` deletes
from Census's own `sync_log`, whose runs have no table and start when their first batch is
sent. A small hand-written `sync_log` (one sync, five daily runs of two batches each) is built,
then pruned three ways: a dry run (run-operation), the prune (run-operation) with history
older than two days before a pinned `as_of`, and the on-run-end hook with a later `as_of`.
Each must delete exactly the rows that tests/dbt/retention_expected.py computes from the
records below (their op_type and status written by hand), a prune repeated with the same
horizon nothing, and the package must build again (models and data tests) after each prune
with its current-state marts unchanged."""

from __future__ import annotations

import datetime as dt
import json

import pytest
from census_tables import CENSUS_SYNC_LOG
from marts_harness import Build, install_package, pg_connect
from retention_expected import census_run_starts, expected_doomed
from test_retention_postgres import CURRENT_STATE, log_size, project, summary

SYNC = 101  # the fixture's metadata tables name its source object and destination
FIRST_AS_OF, FIRST_HORIZON = "2026-10-05 12:00:00", dt.datetime(2026, 10, 3, 12)
SECOND_AS_OF, SECOND_HORIZON = "2026-10-07 12:00:00", dt.datetime(2026, 10, 5, 12)
SYNC_LOG = "retention_sync_log"
# run -> its day in October 2026 (06:00); batch 1 is sent a minute in, batch 2 five minutes in
RUNS = {1001: 1, 1002: 2, 1003: 3, 1004: 4, 1005: 5}
# (log_id, run, batch (None: never sent), identifier, payload version, operation, raw status,
#  status message) -> (op_type, status) by hand from the contract. r0 opens every run.
RECORDS = [
    ("R01", 1001, 1, "r0", 1, "upsert", "succeeded", None, ("added", "succeeded")),
    ("R02", 1001, 2, "a", 1, "upsert", "succeeded", None, ("added", "succeeded")),
    ("R03", 1001, 2, "b", 1, "upsert", "succeeded", None, ("added", "succeeded")),
    ("R04", 1001, 2, "c", 1, "upsert", "succeeded", None, ("added", "succeeded")),
    ("R05", 1001, 2, "d", 1, "upsert", "rejected", "Rate limit", ("added", "failed")),
    ("R06", 1002, 1, "r0", 1, "upsert", "succeeded", None, ("changed", "succeeded")),
    ("R07", 1002, 2, "a", 2, "upsert", "succeeded", None, ("changed", "succeeded")),
    ("R08", 1002, 2, "b", 2, "upsert", "succeeded", None, ("changed", "succeeded")),
    ("R09", 1002, 2, "c", 1, "delete", "succeeded", None, ("removed", "succeeded")),
    ("R10", 1002, 2, "d", 1, "upsert", "succeeded", None, ("added", "succeeded")),
    ("R11", 1002, 2, None, 1, "upsert", "NULL", None, (None, "invalid")),
    ("R12", 1002, None, "g", 1, "upsert", None, "API unavailable", ("added", "aborted")),
    ("R13", 1003, 1, "r0", 1, "upsert", "succeeded", None, ("changed", "succeeded")),
    ("R14", 1003, 2, "a", 3, "upsert", "succeeded", None, ("changed", "succeeded")),
    ("R15", 1003, 2, "b", 3, "upsert", "rejected", "Invalid email", ("changed", "failed")),
    ("R16", 1003, 2, "e", 1, "upsert", "succeeded", None, ("added", "succeeded")),
    ("R17", 1004, 1, "r0", 1, "upsert", "succeeded", None, ("changed", "succeeded")),
    ("R18", 1004, 2, "a", 4, "upsert", "succeeded", None, ("changed", "succeeded")),
    ("R19", 1004, 2, "f", 1, "upsert", "succeeded", None, ("added", "succeeded")),
    ("R20", 1005, 1, "r0", 1, "upsert", "succeeded", None, ("changed", "succeeded")),
    ("R21", 1005, 2, "b", 3, "upsert", "succeeded", None, ("changed", "succeeded")),
    ("R22", 1005, 2, "a", 4, "delete", "rejected", "Contact is locked", ("removed", "failed")),
]
# By hand, from the anchor rules: before 2026-10-03 12:00 go d's failed first add, a's run
# 1002 (neither its addition, its last success before the horizon nor its latest), b's
# failed 1003 and the attempt without identifier; r0's are each their run's first batch.
FIRST_PRUNE = {"R05", "R07", "R11", "R15"}
# With every run before the horizon: a's 1003 and b's 1002, changes superseded since.
SECOND_PRUNE = {"R08", "R14"}


def sent_at(run: int, batch: int | None) -> dt.datetime | None:
    if batch is None:
        return None
    return dt.datetime(2026, 10, RUNS[run], 6) + dt.timedelta(minutes=1 if batch == 1 else 5)


def sync_log_rows() -> list[tuple]:
    rows = []
    for log_id, run, batch, identifier, version, operation, raw, message, _ in RECORDS:
        sent = sent_at(run, batch)
        payload = json.dumps({"email": f"{identifier}@x.com", "v": version})
        rows.append((log_id, SYNC, run, identifier, payload, sent,
                     sent and sent + dt.timedelta(minutes=1), operation, raw, message,
                     dt.datetime(2026, 10, 9), 8, 811, 5, 511))
    return rows


def attempts(log_ids: set[str]) -> list[dict]:
    """The records as `expected_doomed` reads them, op_type and status from the table above."""
    return [
        {"log_id": log_id, "sync_id": SYNC, "sync_run_id": run, "row_id": identifier,
         "op_type": op_type, "status": status, "batch_started_at": sent_at(run, batch),
         "batch_ended_at": sent_at(run, batch) and sent_at(run, batch) + dt.timedelta(minutes=1)}
        for log_id, run, batch, identifier, _, _, _, _, (op_type, status) in RECORDS
        if log_id in log_ids
    ]


def expected(log_ids: set[str], horizon: dt.datetime) -> set[str]:
    kept = attempts(log_ids)
    return expected_doomed(kept, census_run_starts(kept), horizon, set(), keep_run_start=True)


def log_ids(build: Build) -> set[str]:
    return {row["log_id"] for row in build.rows(SYNC_LOG)}


def prune(build: Build, *args: str) -> dict[int, tuple]:
    """Runs dbt; returns the per-sync summary that pruning logged meanwhile."""
    offset = log_size(build)
    build.dbt(*args)
    return summary(build, offset)


def current_state(build: Build) -> dict:
    return {mart: build.rows(mart) for mart in CURRENT_STATE}


@pytest.fixture(scope="module")
def scenario(tmp_path_factory):
    build = Build("postgres", tmp_path_factory.mktemp("retention_census"), source="census")
    # the vars change once (for the hook), so dbt parses the project twice
    build.dbt_vars.update(sync_logs_census_sync_log_identifier=SYNC_LOG,
                          sync_logs_retention_days=2)
    connection = pg_connect()
    try:
        with connection.cursor() as cursor:
            cursor.execute(f"create schema {build.schema}")
            cursor.execute(f"create table {build.schema}.{SYNC_LOG} ("
                           + ", ".join(f"{name} {kind}" for name, kind in CENSUS_SYNC_LOG) + ")")
            cursor.executemany(
                f"insert into {build.schema}.{SYNC_LOG} values "
                f"({', '.join('%s' for _ in CENSUS_SYNC_LOG)})", sync_log_rows())
        connection.close()
        install_package()
        build.dbt("seed", "--select", "tag:fixture_census", "package:sync_logs")
        marts = [f"+{mart}" for mart in CURRENT_STATE]
        build.dbt("run", "--select", *marts)
        result = {"build": build, "staged": build.rows("stg_sync_logs__sync_changelog"),
                  "before": log_ids(build), "marts": current_state(build)}
        operation = ["run-operation", "sync_logs.prune_sync_logs", "--args"]
        dry_run = json.dumps({"dry_run": True, "as_of": FIRST_AS_OF})
        result["dry"] = prune(build, *operation, dry_run)
        result["after_dry_run"] = log_ids(build)
        result["first"] = prune(build, *operation, json.dumps({"as_of": FIRST_AS_OF}))
        result["after_first"] = log_ids(build)

        # A whole build (models and data tests) over the pruned log, then its on-run-end hook
        # prunes with the later horizon; a second run's hook finds nothing more to delete.
        build.dbt_vars.update(sync_logs_prune_on_run=True, sync_logs_retention_as_of=SECOND_AS_OF)
        everything = ["--exclude", "resource_type:seed", "resource_type:unit_test"]
        result["second"] = prune(build, "build", *everything)
        result["marts_after_first"] = current_state(build)
        result["after_second"] = log_ids(build)
        offset = log_size(build)
        result["third"] = prune(build, "build", "--select", *marts, *everything)
        result["third_log"] = (build.work / "logs" / "dbt.log").read_text()[offset:]
        result["after_third"] = log_ids(build)
        result["marts_after_second"] = current_state(build)
        yield result
    finally:
        build.drop()


def test_the_census_rules_stage_the_hand_written_op_types(scenario):
    got = {row["log_id"]: (row["op_type"], row["status"]) for row in scenario["staged"]}
    assert got == {record[0]: record[-1] for record in RECORDS}


def test_the_expected_prunes_follow_the_anchor_rules(scenario):
    """The hand-picked sets above equal what retention_expected computes."""
    assert scenario["before"] == {record[0] for record in RECORDS}
    assert expected(scenario["before"], FIRST_HORIZON) == FIRST_PRUNE
    assert expected(scenario["before"] - FIRST_PRUNE, SECOND_HORIZON) == SECOND_PRUNE


def test_dry_run_deletes_nothing_and_counts_what_the_prune_deletes(scenario):
    assert scenario["after_dry_run"] == scenario["before"]
    # 4 rows of runs 1001, 1002 (two) and 1003; every run keeps its first batch
    assert scenario["dry"] == {SYNC: ("would delete", 4, 3, 0)}


def test_prune_deletes_exactly_the_old_rows_that_are_not_anchors(scenario):
    assert scenario["after_first"] == scenario["before"] - FIRST_PRUNE
    assert scenario["first"] == {SYNC: ("deleted", 4, 3, 0)}


def test_on_run_end_prune_deletes_exactly_the_rows_its_later_horizon_adds(scenario):
    assert scenario["after_second"] == scenario["after_first"] - SECOND_PRUNE
    assert scenario["second"] == {SYNC: ("deleted", 2, 2, 0)}


def test_pruning_again_with_the_same_horizon_deletes_nothing(scenario):
    assert "sync_logs retention: nothing to delete" in scenario["third_log"]
    assert scenario["third"] == {}
    assert scenario["after_third"] == scenario["after_second"]


@pytest.mark.parametrize("prune_step", ["marts_after_first", "marts_after_second"])
@pytest.mark.parametrize("mart", sorted(CURRENT_STATE))
def test_current_state_marts_build_unchanged_after_pruning(scenario, prune_step, mart):
    spec = CURRENT_STATE[mart]
    expected_rows = project(scenario["marts"][mart], spec)
    assert expected_rows
    assert project(scenario[prune_step][mart], spec) == expected_rows
