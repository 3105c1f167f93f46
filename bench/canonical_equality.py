"""Row-for-row equality of the canonical tables built by two versions of the package (issue #16).

    PYTHONPATH=python .venv/bin/python bench/canonical_equality.py --handmade --records 100000

"Before" is a git ref (`--base`, default 0045dc6: the last commit whose canonical rules were the
self-contained model files); "after" is this checkout. The script makes a git worktree of the
base under `--work` (removed at the end) and, for every lake and step:

  1. builds `dbt run --select path:models/canonical` (no tests: tables are compared) on the
     embedded `local` target, once per side, each side with its own warehouse folder
     (SYNC_LOGS_WAREHOUSE_DIR), schema (eq_before / eq_after) and target path, both over the
     same lake folder (so paths that hold the lake's location are the same on both sides);
  2. reads every relation of models/canonical that each side built, in ONE SparkSession:
     tables from their parquet folders (<warehouse>/<schema>.db/<table>), views by running
     the side's compiled view SQL over those tables (created as views of eq_<side>);
  3. compares each relation built by both sides: rows before, rows after, and `exceptAll`
     both ways (missing = rows of before not in after, extra = rows of after not in before,
     duplicates counted), the columns that hold the build's clock left out (BUILD_CLOCK).

Lakes: `--handmade` (one hand-made lake, see handmade_lake()), `--records N` (a demo lake of
N records by sync_logs_dev.generator.generate_lake: 20 syncs of 30 runs, seed 7, as
bench/scale.py), `--lake DIR` (an existing lake folder, used as it is; no incremental step
unless --increment-into-existing). Each lake has an incremental step: after the first build
new runs land (and, on the hand-made lake, runs change) and both sides build again
incrementally; the tables are compared after each build.

Relations present on one side only are listed; internal relations (int_sync_logs__*,
sync_logs_quarantine) may be renamed or merged by later commits of issue #16, so their
differences fail the script only with --strict. The exit code is 1 when a public table
differs (or is missing on one side), or a build fails.

Results: bench/results/canonical_equality.md (a table per lake and step) and .json.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

PROJECT_DIR = Path(__file__).resolve().parents[1]
RESULTS = PROJECT_DIR / "bench" / "results"
PUBLIC = [
    "sync_changelog", "sync_snapshot", "sync_runs", "sync_log", "source_objects",
    "destinations", "destination_objects",
]
SIDES = ("before", "after")
# Columns whose values are the build's clock (or derived from it), found by reading the models
# of both sides: F.current_timestamp() in sync_changelog (logged_at; sync_log repeats it as
# _census_logged_at), int_sync_logs__record_files (inspected_at), int_sync_logs__run_manifest
# (manifest_version = unix_micros(current_timestamp()), manifest_updated_at; both are carried
# into int_sync_logs__records / facts / committed_runs / runs_to_load / runs_to_rewrite /
# build_plan and
# sync_runs) and sync_runs (loaded_at). Lake file times (modification_time, last_modified_at,
# file_modified_at) come from the lake's files, which both sides read at the same state.
BUILD_CLOCK = [
    "logged_at", "_census_logged_at", "loaded_at", "inspected_at", "manifest_version",
    "manifest_updated_at",
]
SHOWN_ROWS = 5


def log(message: str) -> None:
    print(f"[{datetime.now(UTC):%H:%M:%S}] {message}", flush=True)


# --- lakes -----------------------------------------------------------------------------------


def handmade_lake(lake: Path) -> None:
    """First state of the hand-made lake (tests/handmade_lake.py helpers), the cases of the
    test modules test_canonical_handmade / _reload / _ingest in one lake:
    sync 10: a run with rejected and deleted records, a camelCase run (offset times, one file
      lacking a column, a stray file), a run whose metadata.json is not JSON;
    sync 11: a run without records;
    sync 20: four runs of upserts and a delete (later made to reload and go invalid);
    syncs 31-35: runs whose files are later removed or emptied, a file that is not parquet;
    sync 40: a run whose record is re-delivered in a second file (retry), duplicate ids,
      a null identifier, a naive timestamp column;
    fact files: source objects in two orgs (the newer file wins), destinations, objects."""
    sys.path.insert(0, str(PROJECT_DIR / "tests"))
    import pyarrow as pa

    from handmade_lake import (
        at,
        metadata,
        payload,
        rec,
        run_dir,
        write_batch,
        write_facts,
        write_run,
    )

    def upsert(row_id: str, version: int, minute: float) -> dict:
        return rec(row_id, payload(v=version), started=at(minute), ended=at(minute + 1))

    records = "records_updated.0.parquet"
    write_run(lake, 1, 10, 100, at(0), {
        records: [
            rec("a", payload(v=1), started=at(1), ended=at(2)),
            rec("b", payload(v=1), status="rejected", status_message="bad email",
                started=at(1), ended=at(2)),
        ],
        "records_deleted.0.parquet": [
            rec("c", payload(v=1), operation="delete", started=at(3), ended=at(4)),
        ],
    })
    camel = metadata(1, 10, 101, "2026-10-01T09:00:00+02:00",
                     sync_run_finished_at="2026-10-01T07:30:00")
    camel["completed_at"] = camel.pop("sync_run_finished_at")

    def camel_key(key: str) -> str:
        head, *rest = key.split("_")
        return head + "".join(part.capitalize() for part in rest)

    camel = {camel_key(k): ({camel_key(kk): vv for kk, vv in v.items()}
                            if isinstance(v, dict) and k in ("source", "destination") else v)
             for k, v in camel.items()}
    write_run(lake, 1, 10, 101, at(60),
              {records: [rec("a", payload(v=2), started=at(61), ended=None)]}, meta=camel)
    write_batch(run_dir(lake, 1, 10, 101), "records_updated.1.parquet",
                [{"identifier": "z", "record_payload": "{}"}],
                schema=pa.schema([("identifier", pa.string()), ("record_payload", pa.string())]))
    (run_dir(lake, 1, 10, 101) / "README").write_text("notes")
    write_run(lake, 1, 10, 102, at(120), meta="{not json")
    write_run(lake, 1, 11, 200, at(30))

    for run, rows in {
        1: [upsert("a", 1, 1), upsert("b", 1, 1), upsert("c", 1, 1), upsert("e", 1, 1)],
        2: [upsert("a", 2, 61),
            rec("e", payload(v=1), operation="delete", started=at(61), ended=at(62))],
        3: [upsert("c", 2, 121)],
        4: [upsert("a", 3, 181), upsert("c", 2, 181), upsert("e", 1, 181)],
    }.items():
        write_run(lake, 1, 20, 2000 + run, at(60 * (run - 1)), {records: rows})

    write_run(lake, 1, 31, 311, at(0), {records: [upsert("a", 1, 1), upsert("b", 1, 1)]})
    write_run(lake, 1, 32, 321, at(0), {records: [upsert("a", 1, 1), upsert("b", 1, 1)]})
    write_run(lake, 1, 32, 322, at(60), {records: [upsert("a", 2, 61), upsert("c", 1, 61)]})
    write_run(lake, 1, 32, 323, at(120), {records: [upsert("b", 2, 121)]})
    write_run(lake, 1, 33, 331, at(0), {records: [upsert("a", 1, 1), upsert("b", 1, 1)]})
    write_run(lake, 1, 33, 332, at(60), {records: [upsert("a", 2, 61)]})
    write_run(lake, 1, 34, 341, at(0), {records: [upsert("a", 1, 1)]})
    write_run(lake, 1, 35, 351, at(0), {records: [upsert("a", 1, 1)]})
    (run_dir(lake, 1, 35, 351) / "records_updated.1.parquet").write_bytes(b"not parquet")

    write_run(lake, 2, 40, 401, at(0), {
        records: [
            rec("x", payload(v=1), status="failed", status_message="timeout",
                started=at(1), ended=at(2)),
            upsert("y", 1, 1), upsert("y", 1, 1), rec(None, payload(v=1)),
            rec("w", payload(v=1), operation="add", started=at(1), ended=at(2)),
        ],
        "records_updated.1.parquet": [upsert("x", 1, 5)],  # the retry succeeds
    })
    write_run(lake, 2, 40, 402, at(60), {
        records: [upsert("x", 1, 61), upsert("y", 2, 61)],  # x re-delivered unchanged
        "records_deleted.0.parquet": [
            rec("w", payload(v=1), operation="delete", started=at(62), ended=at(63)),
        ],
    })

    source_objects = pa.schema([
        ("id", pa.int64()), ("type", pa.string()), ("name", pa.string()),
        ("model_id", pa.int64()), ("business_object_id", pa.int64()),
        ("filter_segment_id", pa.int64()), ("cohort_id", pa.int64()),
    ])
    named = pa.schema([("id", pa.int64()), ("type", pa.string()), ("name", pa.string())])
    older = write_facts(lake, 1, "source_objects", [
        {"id": 510, "type": "DataWarehouse::Query", "name": "Trials", "model_id": 610},
    ], source_objects)
    newer = write_facts(lake, 2, "source_objects", [
        {"id": 510, "type": "DataWarehouse::Query", "name": "Trials v2", "model_id": 610},
        {"id": 540, "type": "DataWarehouse::Table", "name": "Users", "model_id": 640},
    ], source_objects)
    os.utime(older, (1_700_000_000, 1_700_000_000))
    os.utime(newer, (1_800_000_000, 1_800_000_000))
    write_facts(lake, 1, "destinations",
                [{"id": 8, "type": "Salesforce::Connection", "name": "SF prod"}], named)
    write_facts(lake, 1, "destination_objects", [
        {"id": 810, "type": "Salesforce::ObjectTypes::Contact", "name": "Contact"},
    ], named)


def handmade_increment(lake: Path) -> dict:
    """What lands before the second build of the hand-made lake: sync 20's run 2002 is
    reloaded without records and run 2003's metadata.json stops being JSON (invalid run);
    record files of syncs 31, 32, 35 are removed, sync 33's latest file is emptied, sync 34's
    only run turns invalid; sync 40 gets a late run (started between its two runs) and a new
    run re-delivering earlier records; sync 10's run 102 becomes valid; a fact file changes."""
    sys.path.insert(0, str(PROJECT_DIR / "tests"))
    import pyarrow as pa

    from handmade_lake import at, payload, rec, run_dir, write_batch, write_facts, write_run

    def upsert(row_id: str, version: int, minute: float) -> dict:
        return rec(row_id, payload(v=version), started=at(minute), ended=at(minute + 1))

    records = "records_updated.0.parquet"
    (run_dir(lake, 1, 20, 2002) / records).unlink()
    write_run(lake, 1, 20, 2002, at(60))
    (run_dir(lake, 1, 20, 2003) / "metadata.json").write_text("{not json", encoding="utf-8")
    (run_dir(lake, 1, 31, 311) / records).unlink()
    (run_dir(lake, 1, 32, 322) / records).unlink()
    (run_dir(lake, 1, 35, 351) / records).unlink()
    (run_dir(lake, 1, 35, 351) / "records_updated.1.parquet").unlink()
    write_batch(run_dir(lake, 1, 33, 332), records, [])
    (run_dir(lake, 1, 34, 341) / "metadata.json").write_text("{not json", encoding="utf-8")
    write_run(lake, 2, 40, 400, at(30), {records: [upsert("y", 9, 31), upsert("v", 1, 31)]})
    write_run(lake, 2, 40, 403, at(120), {
        records: [upsert("x", 1, 121), upsert("y", 2, 121), upsert("v", 2, 121)],
        "records_deleted.0.parquet": [
            rec("y", payload(v=2), operation="delete", started=at(122), ended=at(123)),
        ],
    })
    write_run(lake, 1, 10, 102, at(120), {records: [upsert("a", 3, 121)]})
    named = pa.schema([("id", pa.int64()), ("type", pa.string()), ("name", pa.string())])
    write_facts(lake, 1, "destinations", [
        {"id": 8, "type": "Salesforce::Connection", "name": "SF prod (renamed)"},
        {"id": 9, "type": "Hubspot::Connection", "name": "HS"},
    ], named)
    return {"changed": handmade_increment.__doc__.split(":", 1)[1].strip()}


def generated_lake(lake: Path, records: int, seed: int, syncs: int, runs_per_sync: int) -> dict:
    from sync_logs_dev.generator import generate_lake

    summary = generate_lake(lake, syncs=syncs, runs_per_sync=runs_per_sync, records=records,
                            seed=seed, overwrite=True)
    return {"records": records, "seed": seed, "syncs": syncs, "runs_per_sync": runs_per_sync,
            "files": getattr(summary, "files", None)}


def late_run(lake: Path) -> dict:
    """A late run: a copy of the second-to-last run of the sync with the most runs, under a
    new run id, started one second after the run it copies (so before that sync's latest run,
    which the first build loaded)."""
    datasets = lake / "sync_tracking_datasets"
    runs, run_ids = [], []
    for meta_path in datasets.glob("*/*/*/metadata.json"):
        run_ids.append(int(meta_path.parent.name))
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
        started = meta.get("sync_run_started_at")  # the writers spelling the spec's keys
        if "sync_run_id" not in meta or not isinstance(started, str):
            continue
        try:
            moment = datetime.fromisoformat(started.replace("Z", "+00:00"))
        except ValueError:
            continue  # a style fromisoformat does not read: another run is taken
        if moment.tzinfo is None:
            continue
        runs.append((meta_path.parent.parent.name, moment, meta_path.parent, meta))
    by_sync: dict = {}
    for run in runs:
        by_sync.setdefault(run[0], []).append(run)
    sync_runs = max(by_sync.values(), key=len)
    sync_runs.sort(key=lambda r: r[1])
    _, started, folder, meta = sync_runs[-2]
    started = started.isoformat()
    new_id = max(run_ids) + 1000
    target = folder.with_name(str(new_id))
    shutil.copytree(folder, target)
    moment = datetime.fromisoformat(started.replace("Z", "+00:00")).timestamp() + 1
    meta = dict(meta, sync_run_id=new_id,
                sync_run_started_at=datetime.fromtimestamp(moment, UTC).strftime(
                    "%Y-%m-%dT%H:%M:%SZ"))
    (target / "metadata.json").write_text(json.dumps(meta), encoding="utf-8")
    return {"late_run": target.relative_to(lake).as_posix(), "copy_of": folder.name,
            "started_at": meta["sync_run_started_at"], "latest_run_of_sync": sync_runs[-1][2].name}


def generated_increment(lake: Path, increment: int, lake_records: int, seed: int, syncs: int,
                        runs_per_sync: int) -> dict:
    from sync_logs_dev.generator_increment import append_run

    new = append_run(lake, increment, syncs=syncs, runs_per_sync=runs_per_sync,
                     lake_records=lake_records, seed=seed)
    return {"new_run": new["path"], "new_run_records": new["records"], **late_run(lake)}


# --- builds ----------------------------------------------------------------------------------


def make_base_worktree(ref: str, folder: Path) -> Path:
    if folder.exists():
        subprocess.run(["git", "-C", str(PROJECT_DIR), "worktree", "remove", "--force",
                        str(folder)], check=False, capture_output=True)
        shutil.rmtree(folder, ignore_errors=True)
    subprocess.run(["git", "-C", str(PROJECT_DIR), "worktree", "add", "--detach", str(folder),
                    ref], check=True, capture_output=True, text=True)
    return folder


def remove_base_worktree(folder: Path) -> None:
    subprocess.run(["git", "-C", str(PROJECT_DIR), "worktree", "remove", "--force",
                    str(folder)], check=False, capture_output=True)


def build(side: str, project: Path, lake: Path, work: Path, step: str, timeout: float) -> dict:
    from sync_logs_dev.dbt_subprocess import run_dbt_subprocess

    env = {"SYNC_LOGS_WAREHOUSE_DIR": str(work / side / "warehouse"),
           "SYNC_LOGS_SCHEMA": f"eq_{side}"}
    run = run_dbt_subprocess(
        ["run", "--select", "path:models/canonical"], target="local",
        work_dir=work / side / step, project_dir=project,
        dbt_vars={"sync_logs_raw_root": str(lake)},
        env=env, check=False, timeout=timeout)
    log(f"  {side}: dbt run exited {run.returncode} in {run.seconds:.0f}s")
    return {"returncode": run.returncode, "seconds": round(run.seconds, 1),
            "command": shlex.join(run.command), "tail": run.tail(30) if run.returncode else ""}


def relations(side: str, work: Path, step: str) -> dict[str, dict]:
    """Relations of models/canonical that the side's build wrote (run_results + manifest):
    name -> {materialized, folder (tables) or sql (views)}."""
    target = work / side / step / "dbt"
    manifest = json.loads((target / "manifest.json").read_text())
    results = json.loads((target / "run_results.json").read_text())["results"]
    built = {r["unique_id"] for r in results if r["status"] == "success"}
    found = {}
    for uid in built:
        node = manifest["nodes"][uid]
        if not node["original_file_path"].startswith("models/canonical/"):
            continue
        name = node.get("alias") or node["name"]
        entry = {"materialized": node["config"]["materialized"]}
        if entry["materialized"] == "view":
            compiled = target / "compiled" / node["package_name"] / node["original_file_path"]
            entry["sql"] = node.get("compiled_code") or compiled.read_text()
        else:
            entry["folder"] = str(work / side / "warehouse" / f"{node['schema']}.db" / name)
        found[name] = entry
    return found


# --- comparison ------------------------------------------------------------------------------


def register(spark, side: str, found: dict[str, dict]) -> dict[str, str]:
    """Tables of a side as external tables of database eq_<side> in the comparing session
    (the names its views' SQL uses); returns the relations that could not be read."""
    database = f"eq_{side}"
    spark.sql(f"drop database if exists {database} cascade")
    spark.sql(f"create database {database}")
    problems = {}
    for name, entry in found.items():
        if entry["materialized"] == "view":
            continue
        folder = Path(entry["folder"])
        if not any(folder.rglob("*.parquet")):
            problems[name] = "no parquet file (an empty table)"
            continue
        spark.sql(f"create table {database}.{name} using parquet location '{folder}'")
        try:
            spark.sql(f"alter table {database}.{name} recover partitions")
        except Exception:  # noqa: BLE001 - not a partitioned table
            pass
    # Views, from the side's compiled SQL (which names eq_<side>.<relation>), in as many
    # passes as views on views need.
    views = {n: e["sql"] for n, e in found.items() if e["materialized"] == "view"}
    while views:
        created = []
        for name, sql in views.items():
            try:
                spark.sql(f"create view {database}.{name} as {sql}")
                created.append(name)
            except Exception as error:  # noqa: BLE001 - retried after the others
                problems[name] = f"view not created: {str(error).splitlines()[0][:300]}"
        for name in created:
            views.pop(name)
            problems.pop(name, None)
        if not created:
            break
    return problems


def frame(spark, side: str, name: str, entry: dict):
    return spark.table(f"eq_{side}.{name}")


def comparable(df, excluded: list[str]):
    """Leaves out the build-clock columns; map-typed columns (which exceptAll cannot compare)
    become JSON text."""
    from pyspark.sql import functions as F

    columns = []
    for field in df.schema.fields:
        if field.name in excluded:
            continue
        if "map<" in field.dataType.simpleString():
            columns.append(F.to_json(F.col(f"`{field.name}`")).alias(field.name))
        else:
            columns.append(F.col(f"`{field.name}`"))
    return df.select(*columns)


def compare_relation(spark, name: str, before_entry: dict, after_entry: dict) -> dict:
    return compare_frames(name, frame(spark, "before", name, before_entry),
                          frame(spark, "after", name, after_entry))


def compare_frames(name: str, before, after) -> dict:
    """One relation of both sides, row for row: counts, `exceptAll` both ways (duplicates
    counted), the first differing rows; BUILD_CLOCK columns left out, columns and types that
    differ listed (a column of another type is cast to the before side's type to compare)."""
    from pyspark.sql import functions as F

    excluded = sorted({c for c in BUILD_CLOCK if c in before.columns or c in after.columns})
    before_types = {f.name: f.dataType.simpleString() for f in before.schema.fields}
    after_types = {f.name: f.dataType.simpleString() for f in after.schema.fields}
    result = {
        "relation": name,
        "public": name in PUBLIC,
        "excluded_columns": excluded,
        "columns_only_before": sorted(set(before_types) - set(after_types) - set(excluded)),
        "columns_only_after": sorted(set(after_types) - set(before_types) - set(excluded)),
        "type_differences": {c: [before_types[c], after_types[c]] for c in before_types
                             if c in after_types and before_types[c] != after_types[c]},
    }
    common = [c for c in before.columns if c in after_types and c not in excluded]
    b = comparable(before.select(*[f"`{c}`" for c in common]), [])
    a = comparable(after.select(
        *[F.col(f"`{c}`").cast(before.schema[c].dataType).alias(c)
          if c in result["type_differences"] else F.col(f"`{c}`") for c in common]), [])
    b.cache()
    a.cache()
    missing, extra = b.exceptAll(a), a.exceptAll(b)
    result.update(rows_before=b.count(), rows_after=a.count(), missing=missing.count(),
                  extra=extra.count())
    result["equal"] = (result["missing"] == 0 and result["extra"] == 0
                       and not result["columns_only_before"] and not result["columns_only_after"]
                       and not result["type_differences"])
    if result["missing"] or result["extra"]:
        result["first_missing"] = [row_text(r) for r in missing.limit(SHOWN_ROWS).collect()]
        result["first_extra"] = [row_text(r) for r in extra.limit(SHOWN_ROWS).collect()]
    b.unpersist()
    a.unpersist()
    return result


def row_text(row) -> dict:
    return {k: (v if isinstance(v, int | float | bool) or v is None else str(v))
            for k, v in row.asDict().items()}


def compare_step(spark, work: Path, step: str) -> dict:
    found = {side: relations(side, work, step) for side in SIDES}
    unreadable = {side: register(spark, side, found[side]) for side in SIDES}
    names = sorted(set(found["before"]) | set(found["after"]),
                   key=lambda n: (n not in PUBLIC, n))
    compared = []
    for name in names:
        if name not in found["before"] or name not in found["after"]:
            side = "before" if name in found["before"] else "after"
            compared.append({"relation": name, "public": name in PUBLIC, "only_on": side,
                             "equal": False})
            continue
        broken = [f"{s}: {unreadable[s][name]}" for s in SIDES
                  if unreadable[s].get(name, "").startswith("view not created")]
        if broken:
            compared.append({"relation": name, "public": name in PUBLIC, "equal": False,
                             "error": "; ".join(broken)})
            log(f"  {name}: {summary(compared[-1])}")
            continue
        empty = [s for s in SIDES if name in unreadable[s]]
        if empty:
            compared.append(compare_empty(spark, name, found, empty))
            continue
        try:
            compared.append(compare_relation(spark, name, found["before"][name],
                                             found["after"][name]))
        except Exception as error:  # noqa: BLE001 - reported, counts as a difference
            compared.append({"relation": name, "public": name in PUBLIC, "equal": False,
                             "error": str(error).splitlines()[0][:300]})
        log(f"  {name}: {summary(compared[-1])}")
    return {"relations": compared}


def compare_empty(spark, name: str, found: dict, empty: list[str]) -> dict:
    """A table with no parquet file on one side (an empty table written without a schema
    file): its rows are 0 there; the other side's rows are counted."""
    counts = {}
    for side in SIDES:
        counts[side] = 0 if side in empty else frame(spark, side, name, found[side][name]).count()
    return {"relation": name, "public": name in PUBLIC, "excluded_columns": [],
            "rows_before": counts["before"], "rows_after": counts["after"],
            "missing": counts["before"], "extra": counts["after"],
            "equal": counts["before"] == counts["after"] == 0,
            "note": f"no parquet file on {', '.join(empty)} (empty table)"}


def summary(r: dict) -> str:
    if "only_on" in r:
        return f"only built {r['only_on']}"
    if "error" in r:
        return f"not compared: {r['error']}"
    verdict = "equal" if r["equal"] else "DIFFERS"
    return (f"{r['rows_before']} rows before, {r['rows_after']} after, "
            f"{r['missing']} missing, {r['extra']} extra: {verdict}")


# --- report ----------------------------------------------------------------------------------


def cell(value) -> str:
    return str(value).replace("|", "\\|").replace("\n", " ")


def markdown(report: dict) -> str:
    lines = [
        "# Canonical tables: before and after, row for row",
        "",
        "Written by `bench/canonical_equality.py` (issue #16): every relation of "
        "`models/canonical` built by the base ref and by this checkout over the same lake, "
        "compared with `exceptAll` both ways in one SparkSession (missing = rows of before not "
        "in after, extra = rows of after not in before, duplicates counted).",
        "",
        f"- base (before): `{report['base']}` ({report['base_commit']})",
        f"- after: `{report['after_commit']}`"
        + (" (with uncommitted changes)" if report.get("after_dirty") else ""),
        f"- started {report['started_at']}, finished {report['finished_at']}",
        "- columns holding the build's clock, left out wherever they occur: "
        + ", ".join(f"`{c}`" for c in BUILD_CLOCK),
        "- internal relations (int_sync_logs__*, sync_logs_quarantine) may be renamed or merged "
        "by later commits of issue #16: a difference there fails only with --strict",
        "",
        "Commands:",
        "",
    ]
    lines += [f"    {c}" for c in report["commands"]]
    for lake in report["lakes"]:
        lines += ["", f"## Lake `{lake['name']}`", ""]
        if lake.get("info"):
            lines += [f"Lake: `{json.dumps(lake['info'])}`", ""]
        for step in lake["steps"]:
            lines += [f"### {lake['name']}: {step['step']}", ""]
            if step.get("changes"):
                lines += [f"Before this build: `{json.dumps(step['changes'])}`", ""]
            lines += ["Builds: " + ", ".join(
                f"{side} {b['seconds']} s (exit {b['returncode']})"
                for side, b in step["builds"].items()), ""]
            if "relations" not in step:
                lines += [f"Not compared: {step.get('error', 'a build failed')}", ""]
                continue
            lines += ["| relation | kind | rows before | rows after | missing | extra | result |",
                      "|---|---|---:|---:|---:|---:|---|"]
            details = []
            for r in step["relations"]:
                kind = "public" if r["public"] else "internal"
                if "only_on" in r or "error" in r:
                    lines.append(f"| {r['relation']} | {kind} | | | | | {cell(summary(r))} |")
                    continue
                verdict = "equal" if r["equal"] else "**differs**"
                notes = []
                for key in ("columns_only_before", "columns_only_after", "type_differences"):
                    if r.get(key):
                        notes.append(f"{key}: {r[key]}")
                if r.get("note"):
                    notes.append(r["note"])
                lines.append(
                    f"| {r['relation']} | {kind} | {r['rows_before']:,} | {r['rows_after']:,} "
                    f"| {r['missing']:,} | {r['extra']:,} | {verdict}"
                    + (f" ({cell('; '.join(notes))})" if notes else "") + " |")
                if r.get("first_missing") or r.get("first_extra"):
                    details += [f"First differing rows of `{r['relation']}`:", ""]
                    details += [f"- missing: `{json.dumps(x)}`" for x in r["first_missing"]]
                    details += [f"- extra: `{json.dumps(x)}`" for x in r["first_extra"]]
                    details.append("")
            lines += [""] + details
    lines += ["", f"Verdict: {report['verdict']}", ""]
    return "\n".join(lines)


def git(*args: str) -> str:
    return subprocess.run(["git", "-C", str(PROJECT_DIR), *args], check=True,
                          capture_output=True, text=True).stdout.strip()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", default="0045dc6", help="git ref built as 'before'")
    parser.add_argument("--lake", type=Path, action="append", default=[],
                        help="an existing lake folder (repeatable); compared as it is")
    parser.add_argument("--records", type=int, action="append", default=[],
                        help="generate a demo lake of N records (repeatable)")
    parser.add_argument("--handmade", action="store_true", help="the hand-made lake")
    parser.add_argument("--increment", type=int, default=None,
                        help="records of the new run of a generated lake's incremental step "
                        "(default: a tenth of the lake)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--syncs", type=int, default=20)
    parser.add_argument("--runs-per-sync", type=int, default=30)
    parser.add_argument("--work", type=Path, default=Path("/tmp/canonical_equality"))
    parser.add_argument("--keep", action="store_true", help="keep the work folder")
    parser.add_argument("--strict", action="store_true",
                        help="internal relations that differ fail the script too")
    parser.add_argument("--timeout", type=float, default=3600, help="seconds per dbt run")
    parser.add_argument("--results", type=Path, default=RESULTS / "canonical_equality",
                        help="results path without suffix (.md and .json are written)")
    parser.add_argument("--combine", type=Path, nargs="+", default=None,
                        help="only write --results from the .json results of earlier runs")
    args = parser.parse_args(argv)
    if args.combine:
        write_combined([json.loads(p.read_text()) for p in args.combine], args.results)
        return 0
    if not (args.lake or args.records or args.handmade):
        parser.error("give --handmade, --records N or --lake DIR")

    work = args.work.resolve()
    work.mkdir(parents=True, exist_ok=True)
    base_dir = make_base_worktree(args.base, work / "base")
    projects = {"before": base_dir, "after": PROJECT_DIR}
    command = shlex.join([".venv/bin/python", *sys.argv]) if argv is None else shlex.join(
        ["bench/canonical_equality.py", *argv])
    report = {
        "base": args.base, "base_commit": git("rev-parse", "--short", args.base),
        "after_commit": git("rev-parse", "--short", "HEAD"),
        "after_dirty": bool(git("status", "--porcelain", "--", "python", "models", "macros")),
        "started_at": f"{datetime.now(UTC):%Y-%m-%d %H:%M:%S} UTC",
        "commands": [f"PYTHONPATH=python {command}"],
        "build_clock_columns": BUILD_CLOCK, "lakes": [],
    }

    lakes = []
    if args.handmade:
        lakes.append(("handmade", None, lambda lake: handmade_lake(lake) or {},
                      handmade_increment))
    for n in args.records:
        increment = args.increment or max(1, n // 10)
        lakes.append((f"generated_{n}", None,
                      lambda lake, n=n: generated_lake(lake, n, args.seed, args.syncs,
                                                       args.runs_per_sync),
                      lambda lake, n=n, inc=increment: generated_increment(
                          lake, inc, n, args.seed, args.syncs, args.runs_per_sync)))
    for folder in args.lake:
        lakes.append((folder.resolve().name, folder.resolve(), None, None))

    from sync_logs.spark import local_session

    spark = None
    public_differs = internal_differs = failed = False
    try:
        for name, existing, make, increment in lakes:
            lake_work = work / name
            shutil.rmtree(lake_work, ignore_errors=True)
            lake = existing or lake_work / "lake"
            entry = {"name": name, "lake": str(lake), "steps": []}
            report["lakes"].append(entry)
            if make is not None:
                log(f"{name}: writing the lake")
                entry["info"] = make(lake)
            steps = [("first build", None)] + ([("incremental build", increment)]
                                               if increment else [])
            for step_name, change in steps:
                step = {"step": step_name, "builds": {}}
                entry["steps"].append(step)
                if change is not None:
                    step["changes"] = change(lake)
                slug = step_name.replace(" ", "_")
                log(f"{name}: {step_name}")
                for side in SIDES:
                    step["builds"][side] = build(side, projects[side], lake, lake_work, slug,
                                                 args.timeout)
                if any(b["returncode"] != 0 for b in step["builds"].values()):
                    failed = True
                    step["error"] = "; ".join(
                        f"{side} build failed: {b['tail'][-600:]}"
                        for side, b in step["builds"].items() if b["returncode"])
                    log(step["error"])
                    break
                if spark is None:
                    spark = local_session(work / "compare_warehouse", driver_memory="3g")
                step.update(compare_step(spark, lake_work, slug))
                for r in step["relations"]:
                    if not r["equal"]:
                        if r["public"]:
                            public_differs = True
                        else:
                            internal_differs = True
                write_results(report, args.results, "in progress")
    finally:
        if spark is not None:
            spark.stop()
        remove_base_worktree(base_dir)
        if not args.keep:
            for name, *_ in lakes:
                shutil.rmtree(work / name, ignore_errors=True)
    verdict = (
        "a build failed" if failed
        else "a public table differs" if public_differs
        else "public tables equal; an internal relation differs" if internal_differs
        else "every relation equal"
    )
    write_results(report, args.results, verdict)
    log(f"verdict: {verdict}")
    return 1 if failed or public_differs or (args.strict and internal_differs) else 0


def write_combined(reports: list[dict], results: Path) -> None:
    """One report of several runs (e.g. the hand-made lake and each generated size, run
    apart): their lakes in order, every command, the verdicts joined."""
    first = reports[0]
    combined = dict(first, lakes=[lake for r in reports for lake in r["lakes"]],
                    commands=[c for r in reports for c in r["commands"]],
                    started_at=min(r["started_at"] for r in reports))
    verdicts = [f"{', '.join(lake['name'] for lake in r['lakes'])}: {r['verdict']}"
                for r in reports]
    combined["verdict"] = "; ".join(verdicts)
    combined["finished_at"] = max(r["finished_at"] for r in reports)
    combined["after_commit"] = ", ".join(dict.fromkeys(r["after_commit"] for r in reports))
    results.parent.mkdir(parents=True, exist_ok=True)
    results.with_suffix(".json").write_text(json.dumps(combined, indent=1, default=str) + "\n")
    results.with_suffix(".md").write_text(markdown(combined))


def write_results(report: dict, results: Path, verdict: str) -> None:
    report["verdict"] = verdict
    report["finished_at"] = f"{datetime.now(UTC):%Y-%m-%d %H:%M:%S} UTC"
    results.parent.mkdir(parents=True, exist_ok=True)
    results.with_suffix(".json").write_text(json.dumps(report, indent=1, default=str) + "\n")
    results.with_suffix(".md").write_text(markdown(report))


if __name__ == "__main__":
    started = time.monotonic()
    code = main()
    log(f"done in {time.monotonic() - started:.0f}s")
    sys.exit(code)
