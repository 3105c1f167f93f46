"""The vendors' example queries (analyses/), compiled by dbt in the consumer project and run
on the shared Spark session over the consumer's build. Expected values come from the lake
generator's manifest and from the lake's parquet files, read with pyarrow."""

from collections import defaultdict
from pathlib import Path

import pyarrow.parquet as pq
import pytest

ANALYSES = {
    "census_sync_log_by_sync",
    "census_deleted_records_of_run",
    "census_rejected_records_by_message",
    "hightouch_most_common_errors",
    "hightouch_audience_entries_and_exits",
    "hightouch_current_rows_in_all_models",
    "sync_logs_export_rejected_records",
}


@pytest.fixture(scope="module")
def results(consumer_build):
    nodes = consumer_build.manifest()["nodes"]
    compiled = {
        node["name"]: node["compiled_code"]
        for node in nodes.values()
        if node["resource_type"] == "analysis" and node["package_name"] == "sync_logs"
    }
    assert set(compiled) == ANALYSES
    return {name: consumer_build.rows(sql) for name, sql in compiled.items()}


@pytest.fixture(scope="module")
def lake(consumer_build):
    return consumer_build.lake


def lake_records(lake, run_entry: dict | None = None) -> list[dict]:
    root: Path = lake.out_dir
    folder = root / run_entry["path"] if run_entry else root / "sync_tracking_datasets"
    columns = ["identifier", "operation", "status", "status_message"]
    rows = []
    for path in folder.rglob("*.parquet"):
        rows += pq.read_table(path, columns=columns).to_pylist()
    return rows


def test_every_analysis_returns_rows(results):
    assert {name: bool(rows) for name, rows in results.items()} == dict.fromkeys(ANALYSES, True)


def test_sync_log_of_one_sync_with_its_source_object(results, lake):
    rows = results["census_sync_log_by_sync"]
    sync_id = max(s["sync_id"] for s in lake.manifest["syncs"])
    runs = [r for r in lake.manifest["runs"] if r["sync_id"] == sync_id]
    assert {r["sync_id"] for r in rows} == {sync_id}
    # every record the sync's runs wrote, re-deliveries folded
    assert len(rows) == sum(r["records"] - r["redelivered"] for r in runs)
    sync = next(s for s in lake.manifest["syncs"] if s["sync_id"] == sync_id)
    assert {r["source_object_id"] for r in rows} == {sync["source_object_id"]}
    assert {r["source_object_name"] for r in rows} == {sync["model_name"]}


def test_deleted_records_of_the_latest_run_that_deleted(results, lake):
    rows = results["census_deleted_records_of_run"]
    (run_id,) = {r["sync_run_id"] for r in rows}
    deleting = [r for r in lake.manifest["runs"] if r["operation_counts"].get("delete", 0)]
    run = next(r for r in deleting if r["sync_run_id"] == run_id)
    assert run["started_at"] == max(r["started_at"] for r in deleting)
    expected = {r["identifier"] for r in lake_records(lake, run) if r["operation"] == "delete"}
    assert {r["record_identifier"] for r in rows} == expected


def test_rejected_records_grouped_by_message(results, lake):
    expected = defaultdict(set)
    for record in lake_records(lake):
        if record["status"] == "rejected":
            expected[record["status_message"]].add(record["identifier"])
    got = {r["status_message"]: set(r["rejected_records"]) for r in results[
        "census_rejected_records_by_message"]}
    assert got == dict(expected)


def test_most_common_errors_are_real_messages_in_order(results, lake):
    rows = results["hightouch_most_common_errors"]
    counts = [r["c"] for r in rows]
    assert counts == sorted(counts, reverse=True) and counts[-1] >= 1
    known = {r["status_message"] for r in lake_records(lake) if r["status"] == "rejected"}
    known |= {r["error"] for r in lake.manifest["runs"] if r["error"]}
    known |= {"null identifier", "duplicate identifier"}
    assert {r["failed_reason"] for r in rows} <= known


def test_audience_entries_and_exits_alternate(results, lake):
    rows = results["hightouch_audience_entries_and_exits"]
    assert {r["type"] for r in rows} <= {"added", "removed"}
    assert {r["audience"] for r in rows} <= {s["model_name"] for s in lake.manifest["syncs"]}
    by_member = defaultdict(list)
    for r in rows:  # the query orders by audience, user, time
        by_member[(r["audience"], r["user_id"])].append(r["type"])
    for member, types in by_member.items():
        assert all(a != b for a, b in zip(types, types[1:], strict=False)), member


def test_current_rows_in_all_models(results, lake):
    rows = results["hightouch_current_rows_in_all_models"]
    pairs = [(r["model_name"], r["user_id"]) for r in rows]
    assert len(pairs) == len(set(pairs))
    assert {m for m, _ in pairs} <= {s["model_name"] for s in lake.manifest["syncs"]}
    assert all(user is not None for _, user in pairs)


def test_export_of_rejected_records_takes_the_latest_run_that_has_them(results, lake):
    # raw status to changelog status, per the output contract; never-attempted records are
    # neither rejected nor invalid
    status_of = {"rejected": "failed", "NULL": "invalid", "DUPLICATE": "invalid"}
    runs = []
    for run in lake.manifest["runs"]:
        records = [r for r in lake_records(lake, run) if r["status"] in status_of]
        if records:
            runs.append((run["started_at"], run["sync_run_id"], records))
    _, run_id, records = max(runs, key=lambda run: run[:2])
    rows = results["sync_logs_export_rejected_records"]
    assert {r["sync_run_id"] for r in rows} == {run_id}
    assert len(records) < 1000  # the default limit leaves the whole run in
    expected = {(None if r["identifier"] is None else str(r["identifier"]),
                 status_of[r["status"]], r["status"]) for r in records}
    assert {(r["row_id"], r["status"], r["raw_status"]) for r in rows} == expected
    assert all(r["failed_reason"] for r in rows)
