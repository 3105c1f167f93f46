"""The demo lake generator, checked by reading its output back with pyarrow and json.

Expectations come from the input contract (spec/raw-run-outputs.md), re-derived here from the
files themselves: column types, key spellings, what each status implies, and the manifest's
counts recomputed from the rows. No Spark.
"""

from __future__ import annotations

import json
import re
from collections import Counter, defaultdict
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from sync_logs_dev.cli import main
from sync_logs_dev.generator import generate_lake

ARGS = dict(syncs=8, runs_per_sync=6, records=6_000, seed=11)

TS_UTC = pa.timestamp("us", tz="UTC")
REQUIRED_COLUMNS = {
    "identifier": pa.string(),
    "record_payload": pa.string(),
    "operation": pa.string(),
    "status": pa.string(),
    "status_message": pa.string(),
    "batch_started_at": TS_UTC,
    "batch_ended_at": TS_UTC,
}
OPTIONAL_COLUMNS = {"sync_configuration_id": pa.int64(), "sync_run_id": pa.int64()}
BEHAVIOURS = {"update", "upsert", "create", "append", "delete", "mirror"}
RUN_FILE = re.compile(r"^(?P<type>[a-z_]+?)(\.(?P<number>\d+))?\.parquet$")
JSON_TYPES = {str: "string", bool: "boolean", int: "number", float: "number", list: "array",
              dict: "object"}

# the documented alias spellings, written out from the spec (not imported from the generator)
ALIASES = {"sync_configuration_id": "sync_id", "completed_at": "sync_run_finished_at"}
REQUIRED_METADATA = ("organization_id", "sync_id", "sync_run_id", "sync_run_started_at")


def snake(key: str) -> str:
    return re.sub(r"(?<!^)([A-Z])", r"_\1", key).lower()


def normalise_metadata(doc: dict) -> dict:
    """metadata.json with camelCase and alias spellings mapped to the spec's keys."""
    out = {}
    for key, value in doc.items():
        name = ALIASES.get(snake(key), snake(key))
        if name in ("source", "destination") and isinstance(value, dict):
            value = {snake(k): v for k, v in value.items()}
        out[name] = value
    return out


def parse_ts(text: str) -> datetime:
    dt = datetime.fromisoformat(text)
    return dt if dt.tzinfo else dt.replace(tzinfo=UTC)


def json_type(value) -> str | None:
    return None if value is None else JSON_TYPES[type(value)]


# --- fixtures -------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def clean(tmp_path_factory):
    base = tmp_path_factory.mktemp("clean")
    summary = generate_lake(base / "lake", manifest_path=base / "manifest.json", **ARGS)
    manifest = json.loads((base / "manifest.json").read_text())
    return base / "lake", summary, manifest


@pytest.fixture(scope="module")
def bad(tmp_path_factory):
    base = tmp_path_factory.mktemp("bad")
    summary = generate_lake(base / "lake", manifest_path=base / "manifest.json",
                            bad_inputs=True, **ARGS)
    manifest = json.loads((base / "manifest.json").read_text())
    return base / "lake", summary, manifest


@pytest.fixture(scope="module")
def runs(clean):
    """Every valid run read back: folder ids, normalised metadata, raw metadata, record rows."""
    root, _, manifest = clean
    out = []
    for entry in manifest["runs"]:
        folder = root / entry["path"]
        raw = json.loads((folder / "metadata.json").read_text())
        files = sorted(folder.glob("*.parquet"))
        tables = {p.name: pq.read_table(p) for p in files}
        rows = []
        for name, t in tables.items():
            for r in t.select(list(REQUIRED_COLUMNS)).to_pylist():
                r["file"] = name
                rows.append(r)
        out.append({"entry": entry, "folder": folder, "raw": raw,
                    "meta": normalise_metadata(raw), "tables": tables, "rows": rows})
    return out


def lake_files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes()
            for p in sorted(root.rglob("*")) if p.is_file()}


# --- determinism ----------------------------------------------------------------------------


def test_same_seed_same_bytes_other_seed_other_bytes(tmp_path):
    small = dict(syncs=4, runs_per_sync=4, records=900, bad_inputs=True)
    a = generate_lake(tmp_path / "a", seed=3, manifest_path=tmp_path / "a.json", **small)
    b = generate_lake(tmp_path / "b", seed=3, manifest_path=tmp_path / "b.json", **small)
    c = generate_lake(tmp_path / "c", seed=4, **small)
    files_a, files_b = lake_files(a.out_dir), lake_files(b.out_dir)
    assert files_a == files_b
    ma, mb = (json.loads((tmp_path / n).read_text()) for n in ("a.json", "b.json"))
    ma.pop("lake_root"), mb.pop("lake_root")
    assert ma == mb
    assert lake_files(c.out_dir) != files_a


def test_bad_inputs_leave_the_valid_lake_byte_identical(clean, bad):
    clean_files, bad_files = lake_files(clean[0]), lake_files(bad[0])
    assert clean_files.items() <= bad_files.items()
    assert len(bad_files) > len(clean_files)


# --- layout and schema ----------------------------------------------------------------------


def test_layout_is_the_contracts(clean):
    root, _, manifest = clean
    assert sorted(p.name for p in root.iterdir()) == ["metadata", "sync_tracking_datasets"]
    for path in (root / "sync_tracking_datasets").rglob("*"):
        parts = path.relative_to(root / "sync_tracking_datasets").parts
        assert all(p.isdigit() for p in parts[: min(len(parts), 3)]), path
        if path.is_file():
            assert len(parts) == 4, path
            assert parts[3] == "metadata.json" or RUN_FILE.match(parts[3]), path
    run_folders = [p for p in (root / "sync_tracking_datasets").glob("*/*/*")]
    assert len(run_folders) == len(manifest["runs"]) == ARGS["syncs"] * ARGS["runs_per_sync"]
    for org_dir in (root / "metadata").iterdir():
        assert org_dir.name.isdigit()
        assert sorted(p.name for p in org_dir.iterdir()) == [
            "destination_objects.parquet", "destinations.parquet", "source_objects.parquet"]


def test_record_files_have_the_contracts_column_types(runs):
    for run in runs:
        schemas = {name: t.schema for name, t in run["tables"].items()}
        for name, schema in schemas.items():
            for column, dtype in REQUIRED_COLUMNS.items():
                assert schema.field(column).type == dtype, (run["folder"], name, column)
            for column, dtype in OPTIONAL_COLUMNS.items():
                if column in schema.names:
                    assert schema.field(column).type == dtype
        # all files of a run share one schema
        assert len({str(s) for s in schemas.values()}) <= 1, run["folder"]


def test_fact_tables_have_the_contracts_column_types(clean):
    root = clean[0]
    bigint = pa.int64()
    expected = {
        "source_objects.parquet": {"id": bigint, "type": pa.string(), "name": pa.string(),
                                   "model_id": bigint, "business_object_id": bigint,
                                   "filter_segment_id": bigint, "cohort_id": bigint},
        "destinations.parquet": {"id": bigint, "type": pa.string(), "name": pa.string()},
        "destination_objects.parquet": {"id": bigint, "type": pa.string(), "name": pa.string()},
    }
    for path in (root / "metadata").glob("*/*.parquet"):
        schema = pq.read_schema(path)
        assert {f.name: f.type for f in schema} == expected[path.name]
        table = pq.read_table(path)
        assert table.column("id").null_count == 0
        assert len(set(table.column("id").to_pylist())) == table.num_rows
    types = pq.read_table(next((root / "metadata").glob("*/destinations.parquet")))
    assert all(t.endswith("::Connection") for t in types.column("type").to_pylist())


def test_metadata_has_required_fields_matching_the_folder(runs):
    for run in runs:
        meta, folder = run["meta"], run["folder"]
        for key in REQUIRED_METADATA:
            assert meta.get(key) is not None, (folder, key)
        org, sync, run_id = (int(p) for p in folder.parts[-3:])
        assert (meta["organization_id"], meta["sync_id"], meta["sync_run_id"]) == (
            org, sync, run_id)
        assert meta["behavior"] in BEHAVIOURS
        assert meta["sync_run_status"] in ("succeeded", "failed", "cancelled", None)
        assert set(meta["source"]) == {"type", "id", "object_id", "object_name"}
        assert set(meta["destination"]) == {"type", "id", "object_id", "object_type",
                                            "object_name"}
        assert meta["destination"]["type"].endswith("::Connection")
        assert "::ObjectTypes::" in meta["destination"]["object_type"]
        assert set(meta["record_payload_schema"].values()) <= {
            "string", "number", "boolean", "array", "object"}


def test_payloads_match_the_declared_schema_and_identifier(runs):
    for run in runs:
        meta = run["meta"]
        schema, pk = meta["record_payload_schema"], meta["primary_key"]
        for r in run["rows"]:
            payload = json.loads(r["record_payload"])
            assert isinstance(payload, dict)
            assert list(payload) == list(schema), run["folder"]
            for key, value in payload.items():
                assert json_type(value) in (None, schema[key]), (run["folder"], key, value)
            if r["identifier"] is None:
                assert payload[pk] is None
            else:
                assert str(payload[pk]) == r["identifier"]


def test_statuses_mean_what_the_contract_says(runs):
    for run in runs:
        rows, meta = run["rows"], run["meta"]
        invalid_dup = Counter(r["identifier"] for r in rows if r["status"] == "DUPLICATE")
        valid_ids = Counter(r["identifier"] for r in rows
                            if r["status"] not in ("NULL", "DUPLICATE"))
        for r in rows:
            assert r["status"] in ("succeeded", "rejected", "NULL", "DUPLICATE", None)
            assert (r["status"] == "NULL") == (r["identifier"] is None)
            assert (r["status"] == "rejected") == (r["status_message"] is not None)
            assert r["operation"] in BEHAVIOURS
            if r["status"] is None:  # planned, never attempted: only when the run ended early
                assert r["batch_ended_at"] is None
                assert meta["sync_run_status"] in ("failed", "cancelled")
                assert meta["sync_run_error"]
            else:
                assert r["batch_ended_at"] is not None
                assert r["batch_started_at"] <= r["batch_ended_at"]
            assert r["batch_started_at"] >= parse_ts(meta["sync_run_started_at"])
            if meta.get("sync_run_finished_at") and r["batch_ended_at"]:
                assert r["batch_ended_at"] <= parse_ts(meta["sync_run_finished_at"])
        for ident, n in invalid_dup.items():
            assert n >= 2 and ident not in valid_ids  # a duplicated key is invalid everywhere
        # outside re-deliveries, a valid identifier is sent once per run
        distinct = {(r["identifier"], r["record_payload"], r["operation"], r["status"])
                    for r in rows if r["status"] not in ("NULL", "DUPLICATE")}
        assert len(distinct) == len(valid_ids)


# --- counts against the manifest ------------------------------------------------------------


def test_record_count_is_exact_and_matches_the_manifest(clean, runs):
    _, summary, manifest = clean
    total = sum(len(run["rows"]) for run in runs)
    assert total == ARGS["records"] == summary.records == manifest["summary"]["records"]
    assert sum(len(run["tables"]) for run in runs) == manifest["summary"]["record_files"]
    redelivered = 0
    for run in runs:
        entry, rows = run["entry"], run["rows"]
        assert entry["records"] == len(rows)
        assert {f["path"].rsplit("/", 1)[1]: f["rows"] for f in entry["files"]} == {
            name: t.num_rows for name, t in run["tables"].items()}
        status = Counter("aborted" if r["status"] is None else r["status"] for r in rows)
        assert entry["status_counts"] == dict(status)
        assert entry["operation_counts"] == dict(Counter(r["operation"] for r in rows))
        # re-deliveries: rows beyond the first of each (identifier, payload, operation, status)
        valid = [(r["identifier"], r["record_payload"], r["operation"], r["status"])
                 for r in rows if r["status"] not in ("NULL", "DUPLICATE")]
        assert entry["redelivered"] == len(valid) - len(set(valid))
        redelivered += entry["redelivered"]
        assert (entry["status"], entry["sync_run_id"]) == (
            run["meta"]["sync_run_status"], run["meta"]["sync_run_id"])
        assert parse_ts(entry["started_at"]) == parse_ts(run["meta"]["sync_run_started_at"])
    assert redelivered == manifest["summary"]["redelivered"] > 0


# --- realism --------------------------------------------------------------------------------


def test_syncs_cover_behaviours_destinations_and_sources(clean, runs):
    syncs = clean[2]["syncs"]
    assert {s["behavior"] for s in syncs} == BEHAVIOURS
    destinations = {r["meta"]["destination"]["type"] for r in runs}
    assert {"Salesforce::Connection", "Braze::Connection", "HubSpot::Connection",
            "GoogleAds::Connection", "FacebookAds::Connection"} <= destinations
    facts = [pq.read_table(p) for p in clean[0].glob("metadata/*/source_objects.parquet")]
    types = {t for table in facts for t in table.column("type").to_pylist()}
    assert {"DataWarehouse::FilterSegmentSource", "DataWarehouse::Query",
            "DataWarehouse::Table"} <= types
    assert len({s["org_id"] for s in syncs}) == 3


def _by_sync(runs):
    grouped = defaultdict(list)
    for run in runs:
        grouped[run["meta"]["sync_id"]].append(run)
    for group in grouped.values():
        group.sort(key=lambda r: parse_ts(r["meta"]["sync_run_started_at"]))
    return grouped


def test_populations_evolve_over_runs(runs):
    mirror_leavers = changed = resent = 0
    for group in _by_sync(runs).values():
        seen: dict[str, str] = {}  # identifier -> last payload sent
        upserted: set[str] = set()
        for run in group:
            for r in run["rows"]:
                ident = r["identifier"]
                if ident is None or r["status"] in ("NULL", "DUPLICATE"):
                    continue
                if r["operation"] == "delete" and ident in upserted:
                    mirror_leavers += 1
                if r["operation"] == "upsert":
                    upserted.add(ident)
                if ident in seen and seen[ident] != r["record_payload"]:
                    changed += 1
                elif ident in seen:
                    resent += 1
            # remember payloads only after the run (re-deliveries are within a run)
            for r in run["rows"]:
                if r["identifier"] is not None and r["status"] not in ("NULL", "DUPLICATE"):
                    seen[r["identifier"]] = r["record_payload"]
    assert mirror_leavers > 0  # segment members that left were deleted
    assert changed > 0  # upserts with field changes
    assert resent > 0  # unchanged rows re-sent (retries of rejections, resends)


def test_rejections_have_a_spread_of_realistic_messages(runs):
    messages = [r["status_message"] for run in runs for r in run["rows"]
                if r["status"] == "rejected"]
    assert len(set(messages)) >= 15
    text = "\n".join(messages).lower()
    for needle in ("invalid email", "not found", "timed out"):
        assert needle in text, needle
    assert re.search(r"\b429\b|rate limit|too many (calls|requests)", text)  # throttling
    bursts = [t for run in runs for t in run["tables"].values()
              if t.num_rows >= 2 and set(t.column("status").to_pylist()) == {"rejected"}
              and len(set(t.column("status_message").to_pylist())) == 1]
    assert bursts  # a whole batch rejected with one message: the destination throttled it
    assert any(m.lower().count("duplicate") or "already exists" in m.lower() for m in messages)
    auth = re.compile(r"expired|invalid api key|unauthenticated|invalid_session|"
                      r"permission_denied|unauthorized|access token", re.I)
    assert any(auth.search(m) for m in messages)  # records rejected when credentials expired
    failed_for_auth = [run for run in runs if run["meta"]["sync_run_status"] == "failed"
                       and auth.search(run["meta"]["sync_run_error"] or "")]
    assert failed_for_auth
    for run in failed_for_auth:  # the batch that hit the 401 carries the run's error
        assert run["meta"]["sync_run_error"] in {r["status_message"] for r in run["rows"]}


def test_invalid_aborted_and_redelivered_records_are_present(runs):
    statuses = Counter(r["status"] for run in runs for r in run["rows"])
    assert statuses["NULL"] > 0 and statuses["DUPLICATE"] > 0 and statuses[None] > 0
    outcomes = Counter(run["meta"]["sync_run_status"] for run in runs)
    assert outcomes["failed"] > 0 and outcomes["cancelled"] > 0 and outcomes[None] > 0
    unfinished = [run for run in runs if run["meta"].get("sync_run_finished_at") is None]
    assert unfinished
    redelivered = [run for run in runs if run["entry"]["redelivered"]]
    for run in redelivered:  # the same records again in another batch file of the run
        where = defaultdict(set)
        for r in run["rows"]:
            where[(r["identifier"], r["record_payload"])].add(r["file"])
        assert any(len(files) == 2 for files in where.values())
    assert redelivered


def test_files_per_run_vary(runs):
    names = [n for run in runs for n in run["tables"]]
    matched = [RUN_FILE.match(n) for n in names]
    assert {m["type"] for m in matched} >= {"records_updated", "records_created",
                                            "records_deleted", "records_invalid"}
    assert any(m["number"] is None for m in matched)  # old-style <batch_type>.parquet
    assert any(m["number"] is not None and int(m["number"]) > 0 for m in matched)
    assert any(not run["tables"] for run in runs)  # runs with zero record files
    assert any(len(run["tables"]) >= 3 for run in runs)


def test_newer_writers_add_columns(runs):
    extended = [run for run in runs if any(
        "sync_run_id" in t.column_names for t in run["tables"].values())]
    assert extended
    for run in extended:
        for t in run["tables"].values():
            assert set(t.column("sync_run_id").to_pylist()) == {run["meta"]["sync_run_id"]}
            assert set(t.column("sync_configuration_id").to_pylist()) == {run["meta"]["sync_id"]}
            unknown = set(t.column_names) - set(REQUIRED_COLUMNS) - set(OPTIONAL_COLUMNS)
            assert unknown  # a column the contract does not name


def test_metadata_spellings_and_timestamps_vary(runs):
    keys = {k for run in runs for k in run["raw"]}
    assert {"sync_configuration_id", "completed_at", "syncRunId", "sync_id"} <= keys
    unknown = keys - {
        "organization_id", "workspace_id", "sync_id", "sync_run_id", "sync_run_started_at",
        "sync_run_finished_at", "sync_run_status", "sync_run_error", "behavior",
        "primary_key", "source", "destination", "model_name", "model_id", "split_group",
        "record_payload_schema", *ALIASES}
    assert {k for k in unknown if not re.search(r"[A-Z]", k)}  # an undocumented key
    stamps = [run["meta"]["sync_run_started_at"] for run in runs]
    assert any(s.endswith("Z") for s in stamps)
    assert any(datetime.fromisoformat(s).tzinfo is None for s in stamps)
    assert any(s.endswith("+00:00") for s in stamps)
    offsets = {datetime.fromisoformat(s).utcoffset() for s in stamps} - {None}
    assert offsets - {timedelta(0)}  # non-UTC offsets


def test_run_ids_increase_with_start_time(runs):
    ordered = sorted(runs, key=lambda r: parse_ts(r["meta"]["sync_run_started_at"]))
    ids = [r["meta"]["sync_run_id"] for r in ordered]
    assert ids == sorted(ids) and len(set(ids)) == len(ids)


def test_payload_schema_drifts_across_runs(runs):
    kinds = set()
    for group in _by_sync(runs).values():
        schemas = [run["meta"]["record_payload_schema"] for run in group]
        for before, after in zip(schemas, schemas[1:], strict=False):
            if set(after) - set(before):
                kinds.add("added")
            if set(before) - set(after):
                kinds.add("removed")
            if any(before[k] != after[k] for k in set(before) & set(after)):
                kinds.add("retyped")
    assert kinds == {"added", "removed", "retyped"}


def test_fact_tables_lag_behind_the_newest_sync(clean, runs):
    root = clean[0]
    in_facts = defaultdict(set)
    for name in ("source_objects", "destination_objects", "destinations"):
        for path in root.glob(f"metadata/*/{name}.parquet"):
            in_facts[name] |= set(pq.read_table(path).column("id").to_pylist())
    seen = defaultdict(set)
    for run in runs:
        seen["source_objects"].add(run["meta"]["source"]["object_id"])
        seen["destination_objects"].add(run["meta"]["destination"]["object_id"])
        seen["destinations"].add(run["meta"]["destination"]["id"])
    for name in ("source_objects", "destination_objects", "destinations"):
        missing = seen[name] - in_facts[name]
        assert missing, name  # only in run metadata
        assert len(missing) < len(seen[name])
    assert in_facts["source_objects"] - seen["source_objects"]  # objects of deleted syncs


# --- bad input ------------------------------------------------------------------------------

BAD_KINDS = {
    "corrupt_parquet", "truncated_parquet", "missing_column", "file_run_id_mismatch",
    "metadata_missing", "metadata_not_json", "metadata_ids_mismatch", "metadata_missing_field",
    "non_integer_folder", "stray_file", "payload_not_object", "payload_empty", "payload_large",
    "late_run",
}


def test_every_bad_input_case_is_injected_and_described(bad):
    root, summary, manifest = bad
    items = manifest["bad_items"]
    assert {i["kind"] for i in items} == BAD_KINDS
    assert summary.bad_items == len(items) == manifest["summary"]["bad_items"]
    for item in items:
        assert (root / item["path"]).exists(), item
    by_kind = defaultdict(list)
    for item in items:
        by_kind[item["kind"]].append(item)

    for kind in ("corrupt_parquet", "truncated_parquet"):
        with pytest.raises(pa.ArrowException):
            pq.read_table(root / by_kind[kind][0]["path"])
    assert {i["column"] for i in by_kind["missing_column"]} == {"status", "operation"}
    for item in by_kind["missing_column"]:
        table = pq.read_table(root / item["path"])
        assert item["column"] not in table.column_names
        assert table.num_rows == item["rows"] > 0
    (item,) = by_kind["file_run_id_mismatch"]
    ids = set(pq.read_table(root / item["path"]).column("sync_run_id").to_pylist())
    assert ids == {item["file_sync_run_id"]} and item["file_sync_run_id"] != int(
        Path(item["path"]).parent.name)

    folder = root / by_kind["metadata_missing"][0]["path"]
    assert not (folder / "metadata.json").exists() and list(folder.glob("*.parquet"))
    with pytest.raises(json.JSONDecodeError):
        json.loads((root / by_kind["metadata_not_json"][0]["path"] / "metadata.json").read_text())
    item = by_kind["metadata_ids_mismatch"][0]
    meta = normalise_metadata(json.loads((root / item["path"] / "metadata.json").read_text()))
    assert meta["sync_run_id"] != int(Path(item["path"]).name)
    item = by_kind["metadata_missing_field"][0]
    meta = normalise_metadata(json.loads((root / item["path"] / "metadata.json").read_text()))
    assert item["field"] not in meta and meta["sync_run_id"] == int(Path(item["path"]).name)

    levels = {i["level"]: i for i in by_kind["non_integer_folder"]}
    assert set(levels) == {"org", "sync", "run"}
    for level, depth in (("org", 1), ("sync", 2), ("run", 3)):
        parts = Path(levels[level]["path"]).parts
        assert len(parts) == depth + 1 and not parts[-1].isdigit()
        assert all(p.isdigit() for p in parts[1:-1])
    assert {Path(i["path"]).name for i in by_kind["stray_file"]} == {
        "_SUCCESS", ".part-0000.crc", "README"}


def test_bad_payload_rows(bad):
    root, _, manifest = bad
    rows = {i["identifier"]: i for i in manifest["bad_items"]
            if i["kind"].startswith("payload_")}
    (path,) = {i["path"] for i in rows.values()}
    table = pq.read_table(root / path)
    found = dict(zip(table.column("identifier").to_pylist(),
                     table.column("record_payload").to_pylist(), strict=True))
    assert set(rows) <= set(found)
    texts = {}
    for ident, item in rows.items():
        text = found[ident]
        texts[item["kind"]] = texts.get(item["kind"], []) + [text]
        if item["kind"] == "payload_large":
            assert len(text.encode()) >= 1_000_000 and isinstance(json.loads(text), dict)
        elif item["kind"] == "payload_empty":
            assert text == ""
        else:
            try:
                assert not isinstance(json.loads(text), dict)
            except json.JSONDecodeError:
                pass
    assert sorted(texts["payload_not_object"]) == sorted(['[1,2]', '"text"', "not json"])


def test_late_run_is_older_than_runs_written_before_it(bad):
    root, _, manifest = bad
    (item,) = [i for i in manifest["bad_items"] if i["kind"] == "late_run"]
    late = root / item["path"]
    mtime = min(p.stat().st_mtime for p in late.iterdir())
    same_sync = [r for r in manifest["runs"] if r["sync_id"] == item["sync_id"]]
    newer = [r for r in same_sync if parse_ts(r["started_at"]) > parse_ts(item["started_at"])]
    assert newer
    for r in newer:
        for p in (root / r["path"]).iterdir():
            assert p.stat().st_mtime < mtime
    (entry,) = [r for r in manifest["runs"] if r["sync_run_id"] == item["sync_run_id"]]
    assert entry["late"] is True


def test_bad_items_do_not_change_valid_run_counts(bad, clean):
    strip = lambda m: [{k: v for k, v in r.items() if k != "late"} for r in m["runs"]]  # noqa: E731
    assert strip(bad[2]) == strip(clean[2])


# --- the entry points -----------------------------------------------------------------------


def test_manifest_outside_the_lake_and_no_silent_overwrite(tmp_path):
    with pytest.raises(ValueError, match="manifest"):
        generate_lake(tmp_path / "lake", syncs=1, runs_per_sync=1, records=10,
                      manifest_path=tmp_path / "lake" / "manifest.json")
    generate_lake(tmp_path / "lake", syncs=1, runs_per_sync=1, records=10)
    with pytest.raises(FileExistsError):
        generate_lake(tmp_path / "lake", syncs=1, runs_per_sync=1, records=10)
    again = generate_lake(tmp_path / "lake", syncs=1, runs_per_sync=1, records=10,
                          overwrite=True)
    assert again.records == 10


def test_zero_records_still_writes_every_run(tmp_path):
    s = generate_lake(tmp_path / "lake", syncs=2, runs_per_sync=3, records=0)
    assert (s.records, s.runs, s.files) == (0, 6, 0)
    assert len(list((tmp_path / "lake").glob("sync_tracking_datasets/*/*/*/metadata.json"))) == 6


def test_cli_generate(tmp_path, capsys):
    out, manifest = tmp_path / "lake", tmp_path / "m.json"
    args = ["generate", "--out", str(out), "--syncs", "3", "--runs-per-sync", "2",
            "--records", "300", "--seed", "5", "--orgs", "2", "--manifest", str(manifest),
            "--start", "2026-11-01T08:00:00+01:00", "--no-progress", "--bad-inputs"]
    assert main(args) == 0
    assert "wrote 300 records" in capsys.readouterr().out
    doc = json.loads(manifest.read_text())
    assert doc["generator"]["start"] == "2026-11-01T07:00:00.000Z"
    assert len({r["org_id"] for r in doc["runs"]}) == 2
    assert min(parse_ts(r["started_at"]) for r in doc["runs"]) >= datetime(
        2026, 11, 1, 7, tzinfo=UTC)
    assert main(args) == 2  # the lake exists and --overwrite was not given
    assert "exists" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["generate", "--out", str(out), "--syncs", "0"])
