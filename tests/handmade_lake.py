"""Small hand-made lakes for the canonical model tests: parquet batches + metadata.json.

Everything is written explicitly by the test that uses it, so expected rows can be written out
next to the input.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

TS = pa.timestamp("us", tz="UTC")
RECORD_SCHEMA = pa.schema(
    [
        ("identifier", pa.string()),
        ("record_payload", pa.string()),
        ("operation", pa.string()),
        ("status", pa.string()),
        ("status_message", pa.string()),
        ("batch_started_at", TS),
        ("batch_ended_at", TS),
    ]
)
BASE_TIME = datetime(2026, 10, 1, 6, 0, tzinfo=UTC)


def at(minutes: float) -> datetime:
    """BASE_TIME + minutes (UTC)."""
    return BASE_TIME + timedelta(minutes=minutes)


def iso(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def payload(**fields) -> str:
    return json.dumps(fields, sort_keys=True)


def rec(
    identifier: str | None,
    record_payload: str | None,
    operation: str = "upsert",
    status: str | None = "succeeded",
    status_message: str | None = None,
    started: datetime | None = None,
    ended: datetime | None = None,
) -> dict:
    return {
        "identifier": identifier,
        "record_payload": record_payload,
        "operation": operation,
        "status": status,
        "status_message": status_message,
        "batch_started_at": started,
        "batch_ended_at": ended,
    }


def upsert(row_id: str, version: int, minute: float, **fields) -> dict:
    """A record of `row_id` whose payload is version `version`, in a batch of one minute from
    `minute`."""
    return rec(row_id, payload(v=version), started=at(minute), ended=at(minute + 1), **fields)


def metadata(
    org: int,
    sync: int,
    run: int,
    started: datetime | str,
    behavior: str = "mirror",
    **extra,
) -> dict:
    doc = {
        "organization_id": org,
        "workspace_id": 7,
        "sync_id": sync,
        "sync_run_id": run,
        "sync_run_started_at": started if isinstance(started, str) else iso(started),
        "sync_run_finished_at": None,
        "sync_run_status": "succeeded",
        "sync_run_error": None,
        "behavior": behavior,
        "primary_key": "user_id",
        "model_name": f"model of sync {sync}",
        "model_id": 600 + sync,
        "split_group": None,
        "source": {"type": "snowflake", "id": 5, "object_id": 500 + sync, "object_name": "src"},
        "destination": {
            "type": "Salesforce::Connection",
            "id": 8,
            "object_id": 800 + sync,
            "object_type": "Salesforce::ObjectTypes::Contact",
            "object_name": "Contact",
        },
        "record_payload_schema": {"email": "string"},
    }
    doc.update(extra)
    return doc


def run_dir(root: Path, org: int | str, sync: int | str, run: int | str) -> Path:
    return Path(root) / "sync_tracking_datasets" / str(org) / str(sync) / str(run)


def write_batch(
    folder: Path, name: str, rows: list[dict], schema: pa.Schema = RECORD_SCHEMA
) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    columns = {field.name: [row.get(field.name) for row in rows] for field in schema}
    table = pa.Table.from_pydict(columns, schema=schema)
    path = folder / name
    pq.write_table(table, path)
    return path


def write_run(
    root: Path,
    org: int,
    sync: int,
    run: int,
    started: datetime | str,
    batches: dict[str, list[dict]] | None = None,
    behavior: str = "mirror",
    meta: dict | str | None = None,
    **extra,
) -> Path:
    """A run folder: metadata.json (or `meta` verbatim when given) and record batch files."""
    folder = run_dir(root, org, sync, run)
    folder.mkdir(parents=True, exist_ok=True)
    if meta is None:
        meta = metadata(org, sync, run, started, behavior, **extra)
    text = meta if isinstance(meta, str) else json.dumps(meta)
    (folder / "metadata.json").write_text(text, encoding="utf-8")
    for name, rows in (batches or {}).items():
        write_batch(folder, name, rows)
    return folder


def write_facts(root: Path, org: int, name: str, rows: list[dict], schema: pa.Schema) -> Path:
    folder = Path(root) / "metadata" / str(org)
    folder.mkdir(parents=True, exist_ok=True)
    table = pa.Table.from_pylist(rows, schema=schema)
    path = folder / f"{name}.parquet"
    pq.write_table(table, path)
    return path
