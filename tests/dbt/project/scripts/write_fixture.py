# ruff: noqa: E501  (the fixture is a table: one record per line reads best)
"""Writes the hand-written fixture as seeds in three shapes: canonical tables, Hightouch's
`hightouch_audit` tables and Census's `sync_log` + metadata. Run it after editing RECORDS or
RUNS; the CSVs are committed. The shapes differ only as the vendors' documented tables do."""

import csv
import json
from datetime import datetime, timedelta
from pathlib import Path

SEEDS = Path(__file__).resolve().parents[1] / "seeds"
ORG = 42

# sync_id -> (model_name, model_id, source_object_id, destination type, id, object id)
SYNCS = {
    101: ("High-intent trial users", 611, 511, "Salesforce::Connection", 8, 811),
    202: ("Churn risk", None, 512, "Braze::Connection", 9, 911),
}
SOURCE_OBJECTS = [
    (511, "DataWarehouse::Query", "High-intent trial users", 611, None, None, None),
    (512, "DataWarehouse::FilterSegmentSource", "Churn risk", None, None, 77, None),
]
DESTINATIONS = [(8, "Salesforce::Connection", "Salesforce prod"), (9, "Braze::Connection", "Braze")]
DESTINATION_OBJECTS = [
    (811, "Salesforce::ObjectTypes::Contact", "Contact"),
    (911, "Braze::ObjectTypes::User", "User"),
]

# (sync_id, sync_run_id, started_at, finished_at, status, error). Sync 202's run ids are
# deliberately out of time order: 2003 ran first.
RUNS = [
    (101, 1001, "2026-10-01 06:00:00", "2026-10-01 06:05:00", "succeeded", None),
    (101, 1002, "2026-10-02 06:00:00", "2026-10-02 06:04:00", "succeeded", None),
    (101, 1003, "2026-10-03 06:00:00", "2026-10-03 06:10:00", "succeeded", None),
    (101, 1004, "2026-10-04 06:00:00", "2026-10-04 06:03:00", "succeeded", None),
    (101, 1005, "2026-10-05 06:00:00", "2026-10-05 06:20:00", "failed", "Destination API unavailable"),
    (202, 2003, "2026-10-01 07:00:00", "2026-10-01 07:05:00", "succeeded", None),
    (202, 2001, "2026-10-02 07:00:00", "2026-10-02 07:02:00", "succeeded", None),
    (202, 2002, "2026-10-03 07:00:00", None, None, None),
]

RATE = "Rate limit exceeded, retry later"
AUTH = "Unauthorized: invalid API key"
# (log_id, sync_id, run, row_id, op_type, status, failed_reason, fields, operation,
#  raw_status, payload_changed: false for removals, as the contract says). Batches are sent one minute into the run and end a minute
# later, except the aborted record (never sent: no batch times).
RECORDS = [
    ("L01", 101, 1001, "u1", "added", "succeeded", None, {"email": "u1@x.com", "plan": "free", "seats": 1}, "upsert", "succeeded", True),
    ("L02", 101, 1001, "u2", "added", "failed", RATE, {"email": "u2@x.com", "plan": "free"}, "upsert", "rejected", True),
    ("L03", 101, 1001, "u3", "added", "succeeded", None, {"email": "u3@x.com", "score": 1}, "upsert", "succeeded", True),
    ("L04", 101, 1001, "u4", "added", "succeeded", None, {"email": "u4@x.com"}, "upsert", "succeeded", True),
    ("L05", 101, 1002, "u1", "changed", "succeeded", None, {"email": "u1@x.com", "plan": "pro", "seats": 1}, "upsert", "succeeded", True),
    ("L06", 101, 1002, "u2", "added", "succeeded", None, {"email": "u2@x.com", "plan": "free"}, "upsert", "succeeded", True),
    ("L07", 101, 1002, "u3", "changed", "succeeded", None, {"email": "u3@x.com", "score": 2}, "upsert", "succeeded", True),
    ("L08", 101, 1002, None, None, "invalid", "null identifier", {"email": "anon@x.com"}, "upsert", "NULL", None),
    ("L09", 101, 1003, "u1", "removed", "succeeded", None, {"email": "u1@x.com", "plan": "pro", "seats": 1}, "delete", "succeeded", False),
    ("L10", 101, 1003, "u2", "changed", "failed", "Invalid email address", {"email": "u2-at-x.com", "plan": "free"}, "upsert", "rejected", True),
    ("L11", 101, 1003, "u3", "changed", "succeeded", None, {"email": "u3@x.com", "score": 2}, "upsert", "succeeded", False),
    ("L12", 101, 1003, "u5", "added", "invalid", "duplicate identifier", {"email": "u5a@x.com"}, "upsert", "DUPLICATE", True),
    ("L13", 101, 1003, "u5", "added", "invalid", "duplicate identifier", {"email": "u5b@x.com"}, "upsert", "DUPLICATE", True),
    ("L14", 101, 1004, "u1", "added", "succeeded", None, {"email": "u1@x.com", "plan": "pro", "seats": 2}, "upsert", "succeeded", True),
    ("L15", 101, 1004, "u2", "changed", "succeeded", None, {"email": "u2@x.com", "plan": "team"}, "upsert", "succeeded", True),
    ("L16", 101, 1004, "u3", "changed", "succeeded", None, {"email": "u3@x.com", "score": 3}, "upsert", "succeeded", True),
    ("L17", 101, 1005, "u1", "removed", "succeeded", None, {"email": "u1@x.com", "plan": "pro", "seats": 2}, "delete", "succeeded", False),
    ("L18", 101, 1005, "u3", "changed", "succeeded", None, {"email": "u3@x.com", "score": 4}, "upsert", "succeeded", True),
    ("L19", 101, 1005, "u4", "removed", "failed", "Contact not found", {"email": "u4@x.com"}, "delete", "rejected", False),
    ("L20", 101, 1005, "u7", "added", "failed", "Request timed out after 30s", {"email": "u7@x.com"}, "upsert", "rejected", True),
    ("L21", 101, 1005, "u6", "added", "aborted", "Destination API unavailable", {"email": "u6@x.com"}, "upsert", None, True),
    ("L22", 202, 2003, "c1", "added", "succeeded", None, {"score": 0.9, "tier": "gold", "tags": ["a", "b"]}, "upsert", "succeeded", True),
    ("L23", 202, 2003, "c2", "added", "failed", AUTH, {"score": 0.5}, "upsert", "rejected", True),
    ("L24", 202, 2001, "c1", "changed", "succeeded", None, {"score": 0.7, "tier": "gold", "tags": ["a", "b"], "note": "x"}, "upsert", "succeeded", True),
    ("L25", 202, 2001, "c2", "added", "failed", AUTH, {"score": 0.5}, "upsert", "rejected", True),
    ("L26", 202, 2001, "c3", "added", "succeeded", None, {"score": 0.2}, "upsert", "succeeded", True),
    ("L27", 202, 2002, "c1", "changed", "failed", RATE, {"score": 0.7, "tier": None, "tags": ["a", "b"]}, "upsert", "rejected", True),
    ("L28", 202, 2002, "c2", "added", "succeeded", None, {"score": 0.5}, "upsert", "succeeded", True),
    ("L29", 202, 2002, "c3", "removed", "succeeded", None, {"score": 0.2}, "delete", "succeeded", False),
]

# The latest state of every row (hand-derived from RECORDS): (sync_id, run, op_type, row_id,
# log_id of the latest attempt, last_succeeded log_id, first_added log_id).
SNAPSHOT = [
    (101, 1004, "unchanged", "u2", "L15", "L15", "L06"),
    (101, 1005, "changed", "u3", "L18", "L18", "L03"),
    (101, 1005, "changed", "u4", "L19", "L04", "L04"),  # its removal failed: still there
    (101, 1003, "unchanged", "u5", "L13", None, None),
    (101, 1005, "added", "u6", "L21", None, None),
    (101, 1005, "added", "u7", "L20", None, None),
    (202, 2002, "changed", "c1", "L27", "L24", "L22"),
    (202, 2002, "added", "c2", "L28", "L28", "L28"),
]


def ts(text):
    return datetime.strptime(text, "%Y-%m-%d %H:%M:%S")


def fmt(value):
    if value is None:
        return ""
    if isinstance(value, datetime):
        return value.strftime("%Y-%m-%d %H:%M:%S")
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def write(name, header, rows):
    folder = SEEDS / name.split("_")[0].replace("fixture", "tables")
    with open(folder / f"{name}.csv", "w", newline="") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(header)
        for row in rows:
            writer.writerow([fmt(value) for value in row])


def main():
    runs = {(r[0], r[1]): r for r in RUNS}
    records = []
    for log_id, sync_id, run, row_id, op, status, reason, fields, operation, raw, changed in RECORDS:
        started = ts(runs[(sync_id, run)][2])
        sent = None if status == "aborted" else started + timedelta(minutes=1)
        ended = None if sent is None else sent + timedelta(minutes=1)
        logged = started + timedelta(minutes=30)
        records.append(dict(
            log_id=log_id, sync_id=sync_id, run=run, row_id=row_id, op=op, status=status,
            reason=reason, fields=json.dumps(fields), operation=operation, raw=raw,
            changed=changed, sent=sent, ended=ended, logged=logged))
    by_log = {r["log_id"]: r for r in records}

    write("fixture_sync_changelog",
          ["log_id", "org_id", "sync_id", "sync_run_id", "op_type", "row_id", "status",
           "failed_reason", "fields", "split_group", "operation", "raw_status",
           "payload_changed", "batch_started_at", "batch_ended_at", "batch_file", "logged_at"],
          [(r["log_id"], ORG, r["sync_id"], r["run"], r["op"], r["row_id"], r["status"],
            r["reason"], r["fields"], None, r["operation"], r["raw"], r["changed"], r["sent"],
            r["ended"], f"records_{r['operation']}.0.parquet", r["logged"]) for r in records])

    run_rows = []
    for sync_id, run, started, finished, status, error in RUNS:
        name, model_id, source_object_id, destination, destination_id, object_id = SYNCS[sync_id]
        mine = [r for r in records if r["sync_id"] == sync_id and r["run"] == run]
        counts = []
        for which in ("planned", "attempted", "succeeded", "failed"):
            for op in ("added", "changed", "removed"):
                keep = {
                    "planned": lambda r: r["status"] != "invalid",
                    "attempted": lambda r: r["status"] in ("succeeded", "failed"),
                    "succeeded": lambda r: r["status"] == "succeeded",
                    "failed": lambda r: r["status"] == "failed",
                }[which]
                counts.append(sum(1 for r in mine if r["op"] == op and keep(r)))
        invalid = sum(1 for r in mine if r["status"] == "invalid")
        run_rows.append((sync_id, run, ORG, 7, "user_id", destination, name, model_id, status,
                         error, ts(started), ts(finished) if finished else None, "mirror", None,
                         5, source_object_id, destination_id, object_id, *counts, invalid, 0,
                         len(mine)))
    count_names = [f"num_{w}_{o}" for w in ("planned", "attempted", "succeeded", "failed")
                   for o in ("add", "change", "remove")]
    run_header = ["sync_id", "sync_run_id", "org_id", "workspace_id", "primary_key",
                  "destination", "model_name", "model_id", "status", "error", "started_at",
                  "finished_at", "behavior", "split_group", "source_id", "source_object_id",
                  "destination_id", "destination_object_id", *count_names, "num_invalid",
                  "num_redelivered", "num_records"]
    write("fixture_sync_runs", run_header, run_rows)

    snapshot = []
    for sync_id, run, op, row_id, latest, succeeded, added in SNAPSHOT:
        r = by_log[latest]
        snapshot.append((sync_id, run, op, row_id, r["status"], r["reason"], r["fields"], None,
                         r["sent"] or ts(runs[(sync_id, run)][2]),
                         by_log[succeeded]["sent"] if succeeded else None,
                         by_log[added]["sent"] if added else None))
    write("fixture_sync_snapshot",
          ["sync_id", "sync_run_id", "op_type", "row_id", "status", "failed_reason", "fields",
           "split_group", "last_attempted_at", "last_succeeded_at", "first_added_at"], snapshot)

    write("fixture_source_objects", ["id", "type", "name", "model_id", "business_object_id",
                                     "filter_segment_id", "cohort_id"], SOURCE_OBJECTS)
    write("fixture_destinations", ["id", "type", "name"], DESTINATIONS)
    write("fixture_destination_objects", ["id", "type", "name"], DESTINATION_OBJECTS)

    # Hightouch: the documented columns only (no log id, no batch times, fewer run columns);
    # its changelog has no split_group (Hightouch creates it only for syncs with splits).
    write("hightouch_sync_changelog",
          ["sync_id", "sync_run_id", "op_type", "row_id", "status", "failed_reason", "fields"],
          [(r["sync_id"], r["run"], r["op"], r["row_id"], r["status"], r["reason"], r["fields"])
           for r in records])
    write("hightouch_sync_snapshot",
          ["sync_id", "op_type", "row_id", "status", "failed_reason", "fields", "split_group"],
          [(s[0], s[2], s[3], s[4], s[5], s[6], None) for s in snapshot])
    keep = ["sync_id", "sync_run_id", "primary_key", "destination", "model_name", "model_id",
            "status", "error", "started_at", "finished_at", *count_names]
    write("hightouch_sync_runs", keep,
          [[row[run_header.index(c)] for c in keep] for row in run_rows])

    # Census: sync_log in its own vocabulary (no op_type, no run table) plus metadata.
    write("census_sync_log",
          ["log_id", "sync_id", "sync_run_id", "record_identifier", "record_payload",
           "batch_started_at", "batch_completed_at", "operation", "status", "status_message",
           "_census_logged_at", "destination_id", "destination_object_id", "source_id",
           "source_object_id"],
          [(r["log_id"], r["sync_id"], r["run"], r["row_id"], r["fields"],
            r["sent"], r["ended"], r["operation"], r["raw"],
            r["reason"] if r["status"] in ("failed", "aborted") else None, r["logged"],
            SYNCS[r["sync_id"]][4], SYNCS[r["sync_id"]][5], 5, SYNCS[r["sync_id"]][2])
           for r in records])
    write("census_source_objects", ["id", "type", "name", "model_id", "business_object_id",
                                    "filter_segment_id", "cohort_id"], SOURCE_OBJECTS)
    write("census_destinations", ["id", "type", "name"], DESTINATIONS)
    write("census_destination_objects", ["id", "type", "name"], DESTINATION_OBJECTS)


if __name__ == "__main__":
    main()
