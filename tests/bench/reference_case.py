"""The hand-made lake of the bench references' tests, with its expected rows written out by hand
from the spec (tests/bench/test_duckdb_reference.py, tests/bench/test_pyspark_reference.py), and a
reader of the references' parquet outputs (a file or Spark's folder of part files).
"""

from __future__ import annotations

import json
from pathlib import Path

import duckdb

from handmade_lake import at, payload, rec, run_dir, write_batch, write_run

V1, V2 = payload(v=1), payload(v=2)


def batch(run_minute: float, k: int) -> dict:
    """Batch k of a run started at `run_minute`: started k minutes in, 30 s long."""
    return {"started": at(run_minute + k), "ended": at(run_minute + k + 0.5)}


def camel_case_metadata(org: int, sync: int, run: int) -> str:
    """An old writer's metadata.json: camelCase keys, a +02:00 offset (07:30Z = at(90))."""
    return json.dumps({
        "organizationId": org, "workspaceId": 7, "syncId": sync, "syncRunId": run,
        "syncRunStartedAt": "2026-10-01T09:30:00+02:00",
        "syncRunFinishedAt": "2026-10-01T09:40:00+02:00", "syncRunStatus": "succeeded",
        "syncRunError": None, "behavior": "mirror", "primaryKey": "user_id",
        "modelName": "model of sync 10", "modelId": 610, "splitGroup": None,
        "source": {"type": "snowflake", "id": 5, "objectId": 510, "objectName": "src"},
        "destination": {"type": "Salesforce::Connection", "id": 8, "objectId": 810,
                        "objectType": "Salesforce::ObjectTypes::Contact",
                        "objectName": "Contact"},
        "recordPayloadSchema": {"v": "number"},
    })


def write_reference_lake(root: Path) -> Path:
    # sync 10 (mirror): runs 101 (06:00), 102 (07:00), 90 (07:30, a smaller id that started
    # later), 103 (08:00), 104 (08:30, no record files)
    write_run(root, 1, 10, 101, at(0), sync_run_status="failed", sync_run_error="token expired",
              batches={
                  "records_invalid.0.parquet": [
                      rec(None, V1, status="NULL", **batch(0, 0)),
                      rec("D", V1, status="DUPLICATE", **batch(0, 0)),
                      rec("D", V2, status="DUPLICATE", **batch(0, 0)),
                  ],
                  "records_updated.1.parquet": [
                      rec("A", V1, **batch(0, 1)),
                      rec("B", V1, status="rejected", status_message="bad email", **batch(0, 1)),
                      rec("E", V1, status=None, started=at(3)),
                  ],
                  # the engine retried batch 1: A re-delivered, folded into batch 1's row
                  "records_updated.2.parquet": [rec("A", V1, **batch(0, 2))],
              })
    write_run(root, 1, 10, 102, at(60), batches={"records_updated.0.parquet": [
        rec("A", V1, **batch(60, 1)),  # same payload: changed, payload_changed false
        rec("B", V1, **batch(60, 1)),  # never succeeded before: added
        rec("F", V1, operation="delete", **batch(60, 1)),  # removed, though never added
    ]})
    folder = run_dir(root, 1, 10, 90)
    folder.mkdir(parents=True)
    (folder / "metadata.json").write_text(camel_case_metadata(1, 10, 90))
    write_batch(folder, "records_updated.parquet", [
        rec("A", V2, **batch(90, 1)),  # changed, payload_changed true
        rec("F", V1, **batch(90, 1)),  # its last state was removed: added again
    ])
    write_run(root, 1, 10, 103, at(120), batches={"records_deleted.0.parquet": [
        rec("A", V2, operation="delete", **batch(120, 1)),
        rec("B", V1, status="rejected", status_message="oops", **batch(120, 1)),
    ]})
    write_run(root, 1, 10, 104, "2026-10-01T08:30:00")  # no zone: UTC
    # sync 20 (append): every row is added
    write_run(root, 1, 20, 201, at(0), behavior="append", batches={
        "records_appended.0.parquet": [rec("X", V1, operation="append", **batch(0, 1))]})
    write_run(root, 1, 20, 202, at(30), behavior="append", batches={
        "records_appended.0.parquet": [
            rec("X", V1, operation="append", **batch(30, 1)),
            rec("Y", V2, operation="append", status="rejected", status_message="no",
                **batch(30, 1)),
        ]})
    return root


def rows(out: Path, table: str, columns: str, order: str) -> list[tuple]:
    path = out / f"{table}.parquet"
    if path.is_dir():  # Spark's folder of part files
        path = path / "*.parquet"
    con = duckdb.connect()
    con.execute("set timezone = 'UTC'")
    return con.execute(f"select {columns} from read_parquet('{path}') order by {order}").fetchall()


CHANGELOG_QUERY = (
    "sync_id, sync_run_id, row_id, op_type, status, failed_reason, payload_changed, "
    "batch_file, fields",
    "sync_id, sync_run_started_at, sync_run_id, row_id nulls first, fields",
)
EXPECTED_CHANGELOG = [
    (10, 101, None, None, "invalid", "null identifier", None, "records_invalid.0.parquet", V1),
    (10, 101, "A", "added", "succeeded", None, True, "records_updated.1.parquet", V1),
    (10, 101, "B", "added", "failed", "bad email", True, "records_updated.1.parquet", V1),
    (10, 101, "D", "added", "invalid", "duplicate identifier", True,
     "records_invalid.0.parquet", V1),
    (10, 101, "D", "added", "invalid", "duplicate identifier", True,
     "records_invalid.0.parquet", V2),
    (10, 101, "E", "added", "aborted", "token expired", True, "records_updated.1.parquet", V1),
    (10, 102, "A", "changed", "succeeded", None, False, "records_updated.0.parquet", V1),
    (10, 102, "B", "added", "succeeded", None, True, "records_updated.0.parquet", V1),
    (10, 102, "F", "removed", "succeeded", None, False, "records_updated.0.parquet", V1),
    (10, 90, "A", "changed", "succeeded", None, True, "records_updated.parquet", V2),
    (10, 90, "F", "added", "succeeded", None, True, "records_updated.parquet", V1),
    (10, 103, "A", "removed", "succeeded", None, False, "records_deleted.0.parquet", V2),
    (10, 103, "B", "changed", "failed", "oops", False, "records_deleted.0.parquet", V1),
    (20, 201, "X", "added", "succeeded", None, True, "records_appended.0.parquet", V1),
    (20, 202, "X", "added", "succeeded", None, True, "records_appended.0.parquet", V1),
    (20, 202, "Y", "added", "failed", "no", True, "records_appended.0.parquet", V2),
]

REDELIVERY_QUERY = ("sync_run_id, row_id, redelivery_count, batch_started_at",
                    "sync_run_id, row_id")
EXPECTED_REDELIVERED = [(101, "A", 1, at(1))]  # one row, from batch 1 (not 2)

SNAPSHOT_QUERY = (
    "sync_id, row_id, sync_run_id, op_type, status, failed_reason, fields, "
    "last_attempted_at, last_succeeded_at, first_added_at",
    "sync_id, row_id, fields",
)
EXPECTED_SNAPSHOT = [
    # A's latest attempt removed it: absent. Sync 10's latest run (104) has no records.
    (10, "B", 103, "unchanged", "failed", "oops", V1, at(121), at(61.5), at(61.5)),
    (10, "D", 101, "unchanged", "invalid", "duplicate identifier", V2, at(0), None, None),
    (10, "E", 101, "unchanged", "aborted", "token expired", V1, at(3), None, None),
    (10, "F", 90, "unchanged", "succeeded", None, V1, at(91), at(91.5), at(91.5)),
    (20, "X", 202, "added", "succeeded", None, V1, at(31), at(31.5), at(1.5)),
    (20, "Y", 202, "added", "failed", "no", V2, at(31), None, None),
]

# sync_run_id, then the counters in bench/duckdb_reference.py's COUNTERS order (planned,
# attempted, succeeded, failed; each add, change, remove), num_invalid, num_redelivered,
# num_records
EXPECTED_COUNTERS = [
    #     planned a/c/r  attempted   succeeded   failed    inv red rec
    (90, 1, 1, 0, 1, 1, 0, 1, 1, 0, 0, 0, 0, 0, 0, 2),
    (101, 3, 0, 0, 2, 0, 0, 1, 0, 0, 1, 0, 0, 3, 1, 7),
    (102, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 3),
    (103, 0, 1, 1, 0, 1, 1, 0, 0, 1, 0, 1, 0, 0, 0, 2),
    (104, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0),
    (201, 1, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1),
    (202, 2, 0, 0, 2, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 2),
]
META_QUERY = ("sync_run_id, status, error, started_at, finished_at, model_id, "
              "source_object_id, destination_object_id, destination", "sync_run_id")


def check_run_metadata(meta: list[tuple]) -> None:
    assert meta[0] == (90, "succeeded", None, at(90), at(100), 610, 510, 810,
                       "Salesforce::Connection")
    assert meta[1][:4] == (101, "failed", "token expired", at(0))
    assert meta[4][3] == at(150)


class ReferenceRules:
    """The expected rows, as tests of a reference's `outputs` (a module fixture): a module runs
    them with `class TestRules(ReferenceRules)`, `counters` set to the reference's counters."""

    counters: list[str] = []

    def test_changelog_rules(self, outputs):
        assert rows(outputs, "changelog", *CHANGELOG_QUERY) == EXPECTED_CHANGELOG

    def test_redelivery_is_folded_into_the_first_copy(self, outputs):
        got = rows(outputs, "changelog", *REDELIVERY_QUERY)
        assert [row for row in got if row[2] != 0] == EXPECTED_REDELIVERED

    def test_snapshot(self, outputs):
        assert rows(outputs, "snapshot", *SNAPSHOT_QUERY) == EXPECTED_SNAPSHOT

    def test_run_counters_and_metadata(self, outputs):
        got = rows(outputs, "runs", f"sync_run_id, {', '.join(self.counters)}, num_invalid, "
                   "num_redelivered, num_records", "sync_run_id")
        assert got == EXPECTED_COUNTERS
        check_run_metadata(rows(outputs, "runs", *META_QUERY))
