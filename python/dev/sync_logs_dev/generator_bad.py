"""Bad input on top of a valid lake: every case of the contract's "Bad input" list.

Nothing already written is modified (except the late run's file times): bad files are added
to valid runs, bad run folders are added next to valid ones. It draws from its own random
stream, so the valid part of the lake is byte-identical with and without bad input.

Each injected item is described in the manifest: `kind`, `path` (relative to the lake root),
`expect` (what a loader should do with it), ids, and `rows` for items that hold records.
  expect = quarantine_file    a record file to skip and report; the rest of its run loads
           quarantine_run     a run folder to skip and report
           quarantine_folder  a folder whose name is not an integer id: skip and report
           stray              a non-data file: ignore (and may report)
           invalid_row        a record whose payload is not a JSON object
           valid              odd but valid: load it (very large payload, late run)
"""

from __future__ import annotations

import io
import json
import os
import shutil
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from sync_logs_dev.generator_files import (
    RECORD_SCHEMA,
    RECORD_SCHEMA_V4,
    TS,
    write_json,
    write_parquet,
)
from sync_logs_dev.generator_payload import Rows

LARGE_PAYLOAD_BYTES = 1_048_576
_BAD_ROW_BASE = 900_000_000  # row numbers far above any sync's population
NOT_OBJECT_PAYLOADS = ("[1,2]", '"text"', "not json")


def inject_bad_inputs(root: Path, written: list, seed: int) -> tuple[list[dict], int]:
    """Add every bad-input case under `root`; returns (manifest items, bytes written)."""
    return _Injector(root, written, np.random.default_rng([seed, 2])).run()


class _Injector:
    def __init__(self, root: Path, written: list, rng: np.random.Generator):
        self.root, self.written, self.rng = root, written, rng
        self.items: list[dict] = []
        self.bytes = 0
        self.next_row = _BAD_ROW_BASE
        self.used: set[int] = set()
        max_run = max(w.plan.run_id for w in written)
        self.next_run_id = (max_run // 1000 + 2) * 1000  # clear of every valid run id

    # --- helpers -------------------------------------------------------------------------------

    def _rel(self, path: Path) -> str:
        return path.relative_to(self.root).as_posix()

    def _pick(self, pred, prefer_unused: bool = True):
        """A valid run matching `pred`, a different one each time while they last."""
        runs = [w for w in self.written if pred(w)]
        if not runs:
            runs = list(self.written)
        fresh = [w for w in runs if w.plan.run_id not in self.used] if prefer_unused else runs
        choice = (fresh or runs)[int(self.rng.integers(len(fresh or runs)))]
        self.used.add(choice.plan.run_id)
        return choice

    def _item(self, kind: str, path: Path, expect: str, w=None, **extra) -> dict:
        item = {"kind": kind, "path": self._rel(path), "expect": expect}
        if w is not None:
            item.update(org_id=w.sync.org_id, sync_id=w.sync.sync_id, sync_run_id=w.plan.run_id)
        item.update(extra)
        self.items.append(item)
        return item

    def _next_batch_name(self, w, batch_type: str = "records_updated") -> str:
        numbers = [int(p.name.split(".")[1]) for p in w.directory.glob("*.*.parquet")
                   if p.name.split(".")[1].isdigit()]
        return f"{batch_type}.{max(numbers, default=-1) + 1}.parquet"

    def _rows(self, count: int) -> Rows:
        row = np.arange(self.next_row, self.next_row + count, dtype=np.int64)
        self.next_row += count
        z = np.zeros(count)
        return Rows(row, z.astype(np.int32), z.astype(np.int8),
                    np.full(count, 1_790_000_000, dtype=np.int64), z.astype(bool))

    def _table(self, w, count: int, v4: bool, run_id_in_file: int | None = None,
               payloads: list[str] | None = None) -> tuple[pa.Table, list[str]]:
        """A batch of plausible records for run `w`, with identifiers no valid run uses."""
        rows = self._rows(count)
        ids = w.shape.identifiers(rows)
        payload = pa.array(payloads) if payloads is not None else w.shape.payloads(
            w.plan.fields, rows)
        op = "upsert" if w.sync.archetype.behavior == "mirror" else w.sync.archetype.behavior
        t0 = int(round(w.plan.started_at * 1000)) * 1000 + 2_000_000
        started = pa.array(np.full(count, t0, dtype=np.int64)).cast(TS)
        ended = pa.array(np.full(count, t0 + 1_500_000, dtype=np.int64)).cast(TS)
        cols = [ids, payload, pa.array([op] * count), pa.array(["succeeded"] * count),
                pa.nulls(count, pa.string()), started, ended]
        if v4:
            run_id = w.plan.run_id if run_id_in_file is None else run_id_in_file
            cols = [pa.array([w.sync.sync_id] * count, pa.int64()),
                    pa.array([run_id] * count, pa.int64()), *cols,
                    pa.nulls(count, pa.string())]
            return pa.Table.from_arrays(cols, schema=RECORD_SCHEMA_V4), ids.to_pylist()
        return pa.Table.from_arrays(cols, schema=RECORD_SCHEMA), ids.to_pylist()

    def _write(self, table: pa.Table, path: Path) -> None:
        self.bytes += write_parquet(table, path)

    def _write_bytes(self, data: bytes, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        self.bytes += len(data)

    # --- the cases -----------------------------------------------------------------------------

    def run(self) -> tuple[list[dict], int]:
        # runs with numbered record files (zero-file runs stay zero-file)
        numbered = lambda w: w.plan.writer != "v1" and bool(w.entry["files"])  # noqa: E731
        self._bad_folders()  # first: it copies a valid run before anything is added to one
        self._bad_files(numbered)
        self._bad_payloads(numbered)
        self._bad_metadata()
        self._stray_files()
        self._late_run()
        return self.items, self.bytes

    def _bad_files(self, numbered) -> None:
        # random bytes with a parquet-like name
        w = self._pick(numbered)
        path = w.directory / self._next_batch_name(w)
        self._write_bytes(b"PAR1" + self.rng.bytes(4092), path)
        self._item("corrupt_parquet", path, "quarantine_file", w, rows=None)

        # a parquet file cut short (the writer died mid-upload)
        w = self._pick(numbered)
        path = w.directory / self._next_batch_name(w)
        table, ids = self._table(w, 40, w.plan.writer == "v4")
        sink = io.BytesIO()
        pq.write_table(table, sink, compression="snappy")
        data = sink.getvalue()
        self._write_bytes(data[: int(len(data) * 0.6)], path)
        self._item("truncated_parquet", path, "quarantine_file", w, rows=len(ids))

        # files lacking a required column
        for column in ("status", "operation"):
            w = self._pick(numbered)
            path = w.directory / self._next_batch_name(w)
            table, ids = self._table(w, 12, w.plan.writer == "v4")
            self._write(table.drop_columns([column]), path)
            self._item("missing_column", path, "quarantine_file", w, column=column,
                       rows=len(ids), identifiers=ids)

        # a newer writer's file whose sync_run_id disagrees with its folder
        w = self._pick(lambda w: w.plan.writer == "v4")
        wrong = w.plan.run_id - 1 - int(self.rng.integers(1, 50))
        path = w.directory / self._next_batch_name(w)
        table, ids = self._table(w, 15, True, run_id_in_file=wrong)
        self._write(table, path)
        self._item("file_run_id_mismatch", path, "quarantine_file", w, file_sync_run_id=wrong,
                   rows=len(ids), identifiers=ids)

    def _bad_payloads(self, numbered) -> None:
        """One valid batch file whose records carry unusable or very large payloads."""
        w = self._pick(numbered)
        path = w.directory / self._next_batch_name(w)
        pk = w.sync.archetype.primary_key
        filler = ("lorem ipsum dolor sit amet " * (LARGE_PAYLOAD_BYTES // 27 + 1))[
            :LARGE_PAYLOAD_BYTES]
        cases = [("payload_not_object", p) for p in NOT_OBJECT_PAYLOADS]
        cases += [("payload_empty", ""), ("payload_large", None)]
        table, ids = self._table(w, len(cases), w.plan.writer == "v4", payloads=[""] * len(cases))
        payloads = []
        for (kind, text), ident in zip(cases, ids, strict=True):
            if kind == "payload_large":
                text = json.dumps({pk: ident, "notes": filler}, separators=(",", ":"))
            payloads.append(text)
        table = table.set_column(table.schema.get_field_index("record_payload"),
                                 "record_payload", pa.array(payloads))
        self._write(table, path)
        for (kind, text), ident, payload in zip(cases, ids, payloads, strict=True):
            self._item(kind, path, "valid" if kind == "payload_large" else "invalid_row", w,
                       identifier=ident, payload_bytes=len(payload.encode()),
                       payload=None if kind == "payload_large" else text)

    def _new_run_folder(self, w) -> tuple[Path, int]:
        run_id = self.next_run_id
        self.next_run_id += int(self.rng.integers(1, 30))
        return w.directory.parent / str(run_id), run_id

    def _bad_metadata(self) -> None:
        """Run folders with records whose metadata.json is missing, broken or wrong."""
        for kind in ("metadata_missing", "metadata_not_json", "metadata_ids_mismatch",
                     "metadata_missing_field"):
            w = self._pick(lambda w: True, prefer_unused=False)
            folder, run_id = self._new_run_folder(w)
            table, ids = self._table(w, 8, w.plan.writer == "v4", run_id_in_file=run_id)
            self._write(table, folder / "records_updated.0.parquet")
            meta_path = folder / "metadata.json"
            extra: dict = {}
            if kind == "metadata_not_json":  # the writer died mid-write
                text = json.dumps({"organization_id": w.sync.org_id, "sync_id": w.sync.sync_id,
                                   "sync_run_id": run_id}, indent=2)
                self._write_bytes(text[: len(text) // 2].encode(), meta_path)
            elif kind == "metadata_ids_mismatch":  # copied from another run of the sync
                source = w.directory / "metadata.json"
                shutil.copyfile(source, meta_path)
                self.bytes += meta_path.stat().st_size
                extra["metadata_sync_run_id"] = w.plan.run_id
            elif kind == "metadata_missing_field":
                doc = json.loads((w.directory / "metadata.json").read_text(encoding="utf-8"))
                doc = _respell(doc)
                doc["sync_run_id"] = run_id
                doc.pop("sync_run_started_at")
                self.bytes += write_json(doc, meta_path)
                extra["field"] = "sync_run_started_at"
            item = self._item(kind, folder, "quarantine_run", None, org_id=w.sync.org_id,
                              sync_id=w.sync.sync_id, sync_run_id=run_id, rows=len(ids), **extra)
            item["files"] = [self._rel(folder / "records_updated.0.parquet")]

    def _bad_folders(self) -> None:
        """Copies of a valid run under folder names that are not integers, at each level."""
        w = self._pick(lambda w: 0 < w.entry["records"] <= 5_000 and w.entry["files"])
        org, sync, run = (w.directory.parent.parent, w.directory.parent, w.directory)
        targets = {
            "org": org.parent / f"{org.name}-staging" / sync.name / run.name,
            "sync": org / f"{sync.name}_backup" / run.name,
            "run": sync / f"{run.name}-retry",
        }
        for level, target in targets.items():
            shutil.copytree(run, target)
            self.bytes += sum(p.stat().st_size for p in target.iterdir())
            folder = {"org": target.parent.parent, "sync": target.parent, "run": target}[level]
            self._item("non_integer_folder", folder, "quarantine_folder", None, level=level,
                       name=folder.name, rows=w.entry["records"],
                       copied_from=self._rel(run))

    def _stray_files(self) -> None:
        w = self._pick(lambda w: bool(w.entry["files"]))
        path = w.directory / "_SUCCESS"
        self._write_bytes(b"", path)
        self._item("stray_file", path, "stray", w)
        w = self._pick(lambda w: bool(w.entry["files"]))
        path = w.directory / ".part-0000.crc"
        self._write_bytes(b"crc\x00" + self.rng.bytes(8), path)
        self._item("stray_file", path, "stray", w)
        path = self.written[0].directory.parent.parent / "README"
        self._write_bytes(b"Sync tracking exports. Do not edit by hand.\n", path)
        self._item("stray_file", path, "stray", None, org_id=self.written[0].sync.org_id)

    def _late_run(self) -> None:
        """A valid run that lands after newer runs of its sync: loaders decide the order; its
        files get the newest modification times."""
        def middle(w) -> bool:
            return 0 < w.plan.index < len(w.sync.runs) - 1 and bool(w.entry["files"])

        w = self._pick(middle)
        w.entry["late"] = True
        later = time.time() + 60
        for p in [*w.directory.iterdir(), w.directory]:
            os.utime(p, (later, later))
        self._item("late_run", w.directory, "valid", w, started_at=w.entry["started_at"],
                   rows=w.entry["records"])


def _respell(doc: dict) -> dict:
    """Back to the spec's keys whatever dialect the copied metadata was written in."""
    if "organizationId" in doc:  # camelCase writer
        snake = {}
        for key, value in doc.items():
            name = "".join("_" + c.lower() if c.isupper() else c for c in key)
            if isinstance(value, dict) and key in ("source", "destination"):
                value = {"".join("_" + c.lower() if c.isupper() else c for c in k): v
                         for k, v in value.items()}
            snake[name] = value
        doc = snake
    renames = {"sync_configuration_id": "sync_id", "completed_at": "sync_run_finished_at"}
    return {renames.get(k, k): v for k, v in doc.items()}

