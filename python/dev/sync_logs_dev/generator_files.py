"""The bytes on disk: record batch parquet files, metadata.json in each writer dialect, fact tables.

Column types follow the input contract (docs: /work/shared/spec/raw-run-outputs.md).
Writer dialects, oldest first:
  v1  camelCase metadata keys; files named `<batch_type>.parquet`, rejections in their own file
  v2  `sync_configuration_id` for `sync_id`, `completed_at` for `sync_run_finished_at`
  v3  the spec's spelling
  v4  the spec's spelling plus an unknown key; files repeat `sync_configuration_id` and
      `sync_run_id` and carry an unknown extra column
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from sync_logs_dev.generator_payload import PayloadField, RecordShape
from sync_logs_dev.generator_sync import OPERATIONS, S_OK, STATUSES, FileSpec, RunOutput

TS = pa.timestamp("us", tz="UTC")
BASE_COLUMNS = [
    pa.field("identifier", pa.string()),
    pa.field("record_payload", pa.string()),
    pa.field("operation", pa.string()),
    pa.field("status", pa.string()),
    pa.field("status_message", pa.string()),
    pa.field("batch_started_at", TS),
    pa.field("batch_ended_at", TS),
]
ID_COLUMNS = [pa.field("sync_configuration_id", pa.int64()), pa.field("sync_run_id", pa.int64())]
EXTRA_COLUMN = pa.field("destination_record_id", pa.string())  # unknown to readers of the spec
RECORD_SCHEMA = pa.schema(BASE_COLUMNS)
RECORD_SCHEMA_V4 = pa.schema(ID_COLUMNS + BASE_COLUMNS + [EXTRA_COLUMN])

_OPS = pa.array(list(OPERATIONS))
_STATUS = pa.array(list(STATUSES))

WRITERS = ("v1", "v2", "v3", "v4")
TIMESTAMP_STYLES = ("zulu", "zulu_seconds", "utc_offset", "naive", "offset")
UNKNOWN_METADATA_KEY = "engine_version"


def schema_for(writer: str) -> pa.Schema:
    return RECORD_SCHEMA_V4 if writer == "v4" else RECORD_SCHEMA


def record_tables(
    out: RunOutput,
    shape: RecordShape,
    fields: tuple[PayloadField, ...],
    writer: str,
    sync_id: int,
    run_id: int,
    chunk_rows: int = 200_000,
) -> Iterator[tuple[FileSpec, pa.Table]]:
    """(file, table) for every batch file of a run. Columns are built for runs of consecutive
    files up to `chunk_rows` records at a time, then sliced per file (zero-copy)."""
    files = out.files
    i = 0
    while i < len(files):
        j, lo = i + 1, files[i].start
        while j < len(files) and files[j].stop - lo <= chunk_rows:
            j += 1
        table = _columns(out, slice(lo, files[j - 1].stop), shape, fields, writer, sync_id,
                         run_id)
        for spec in files[i:j]:
            yield spec, table.slice(spec.start - lo, spec.stop - spec.start)
        i = j


def _columns(out: RunOutput, sl: slice, shape: RecordShape, fields: tuple[PayloadField, ...],
             writer: str, sync_id: int, run_id: int) -> pa.Table:
    rows = out.rows.take(sl)
    n = len(rows)
    status_codes = out.status[sl]
    ident, payload, message = shape.render(fields, rows, out.template[sl])
    columns = [
        ident,
        payload,
        _OPS.take(pa.array(out.op[sl])),
        _STATUS.take(pa.array(status_codes)),
        message,
        pa.array(out.started_us[sl], type=pa.int64()).cast(TS),
        pa.array(out.ended_us[sl], type=pa.int64(), mask=~out.ended_valid[sl]).cast(TS),
    ]
    if writer == "v4":
        ids = [
            pa.array(np.full(n, sync_id, dtype=np.int64)),
            pa.array(np.full(n, run_id, dtype=np.int64)),
        ]
        extra = shape.destination_record_ids(rows.row, status_codes == S_OK)
        return pa.Table.from_arrays(ids + columns + [extra], schema=RECORD_SCHEMA_V4)
    return pa.Table.from_arrays(columns, schema=RECORD_SCHEMA)


_DICTIONARY_COLUMNS = ["operation", "status", "status_message"]


def write_parquet(table: pa.Table, path: Path) -> int:
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(table, path, compression="snappy",
                   use_dictionary=[c for c in _DICTIONARY_COLUMNS if c in table.column_names])
    return os.path.getsize(path)


# --- timestamps ---------------------------------------------------------------------------------


def round_for_style(epoch: float, style: str, up: bool = False) -> float:
    """The instant a timestamp written in `style` denotes: whole seconds for the seconds style
    (rounded up for end times, so a run never finishes before its last batch), else ms."""
    if style == "zulu_seconds":
        return float(math.ceil(epoch) if up else math.floor(epoch))
    return round(epoch, 3)


def format_timestamp(epoch: float, style: str, offset_minutes: int = 0) -> str:
    """ISO-8601 text as the different writers produce it; all denote the same instant."""
    epoch = round_for_style(epoch, style)
    utc = datetime.fromtimestamp(epoch, timezone.utc)
    ms = f"{utc.microsecond // 1000:03d}"
    if style == "zulu":
        return utc.strftime("%Y-%m-%dT%H:%M:%S.") + ms + "Z"
    if style == "zulu_seconds":
        return utc.strftime("%Y-%m-%dT%H:%M:%SZ")
    if style == "utc_offset":
        return utc.strftime("%Y-%m-%dT%H:%M:%S.") + ms + "+00:00"
    if style == "naive":  # no zone suffix: the writer meant UTC
        return utc.strftime("%Y-%m-%dT%H:%M:%S.") + ms
    if style == "offset":  # the same instant in a non-UTC zone
        local = utc.astimezone(timezone(timedelta(minutes=offset_minutes)))
        return local.isoformat(timespec="milliseconds")
    raise ValueError(f"unknown timestamp style {style!r}")


def canonical_timestamp(epoch: float | None) -> str | None:
    """The manifest's spelling: UTC, milliseconds, `Z`."""
    if epoch is None:
        return None
    return format_timestamp(epoch, "zulu")


# --- metadata.json ------------------------------------------------------------------------------


def _camel(key: str) -> str:
    head, *rest = key.split("_")
    return head + "".join(part.title() for part in rest)


def metadata_document(meta: dict, writer: str, style: str, offset_minutes: int) -> dict:
    """Render the canonical run metadata (spec keys, epoch timestamps) as `writer` spells it."""
    doc = dict(meta)
    for key in ("sync_run_started_at", "sync_run_finished_at"):
        if doc[key] is not None:
            doc[key] = format_timestamp(doc[key], style, offset_minutes)
    if writer == "v1":
        out = {}
        for key, value in doc.items():
            if key in ("source", "destination"):
                value = {_camel(k): v for k, v in value.items()}
            out[_camel(key)] = value  # record_payload_schema keys are field names: kept
        return out
    if writer == "v2":
        renamed = {"sync_id": "sync_configuration_id", "sync_run_finished_at": "completed_at"}
        return {renamed.get(k, k): v for k, v in doc.items()}
    if writer == "v4":
        doc[UNKNOWN_METADATA_KEY] = "2026.10.2"
    return doc


def write_json(doc: dict, path: Path) -> int:
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
    path.write_text(text, encoding="utf-8")
    return len(text.encode("utf-8"))


# --- fact tables --------------------------------------------------------------------------------

SOURCE_OBJECTS_SCHEMA = pa.schema(
    [
        pa.field("id", pa.int64()),
        pa.field("type", pa.string()),
        pa.field("name", pa.string()),
        pa.field("model_id", pa.int64()),
        pa.field("business_object_id", pa.int64()),
        pa.field("filter_segment_id", pa.int64()),
        pa.field("cohort_id", pa.int64()),
    ]
)
NAMED_SCHEMA = pa.schema(
    [pa.field("id", pa.int64()), pa.field("type", pa.string()), pa.field("name", pa.string())]
)


def write_facts(org_dir: Path, source_objects: list[dict], destinations: list[dict],
                destination_objects: list[dict]) -> list[tuple[Path, int]]:
    """metadata/<org_id>/{source_objects,destinations,destination_objects}.parquet."""
    written = []
    for name, rows, schema in (
        ("source_objects", source_objects, SOURCE_OBJECTS_SCHEMA),
        ("destinations", destinations, NAMED_SCHEMA),
        ("destination_objects", destination_objects, NAMED_SCHEMA),
    ):
        rows = sorted(rows, key=lambda r: r["id"])
        table = pa.Table.from_pylist(rows, schema=schema)
        path = org_dir / f"{name}.parquet"
        written.append((path, write_parquet(table, path)))
    return written
