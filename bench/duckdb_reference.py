"""The DuckDB reference of bench/scale.py: run bench/duckdb_reference.sql over a lake, and compare
its outputs with the package's tables.

    .venv/bin/python bench/duckdb_reference.py --lake LAKE --out DIR [--memory-limit 6GB]

writes DIR/{changelog,snapshot,runs}.parquet and prints the DuckDB settings used as JSON.
`compare(reference_dir, schema_dir)` reads the package's tables from the warehouse (folders of
parquet files, partitioned: `<warehouse>/<schema>.db/<table>/`) and compares both sides row for
row on the spec's columns (EXCEPT ALL both ways).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import duckdb

SQL = Path(__file__).with_name("duckdb_reference.sql")

# The spec's columns of each table, with the type both sides are cast to before comparing.
# log_id (our hash) and logged_at (load time) have no reference value and are left out.
CHANGELOG_COLUMNS = {
    "org_id": "bigint",
    "sync_id": "bigint",
    "sync_run_id": "bigint",
    "op_type": "varchar",
    "row_id": "varchar",
    "status": "varchar",
    "failed_reason": "varchar",
    "fields": "varchar",
    "split_group": "varchar",
    "operation": "varchar",
    "raw_status": "varchar",
    "payload_changed": "boolean",
    "batch_started_at": "timestamptz",
    "batch_ended_at": "timestamptz",
    "batch_file": "varchar",
}
SNAPSHOT_COLUMNS = {
    "sync_id": "bigint",
    "sync_run_id": "bigint",
    "op_type": "varchar",
    "row_id": "varchar",
    "status": "varchar",
    "failed_reason": "varchar",
    "fields": "varchar",
    "split_group": "varchar",
    "last_attempted_at": "timestamptz",
    "last_succeeded_at": "timestamptz",
    "first_added_at": "timestamptz",
}
COUNTERS = [
    f"num_{kind}_{op}"
    for kind in ("planned", "attempted", "succeeded", "failed")
    for op in ("add", "change", "remove")
]
RUNS_COLUMNS = {
    "sync_id": "bigint",
    "sync_run_id": "bigint",
    "org_id": "bigint",
    "workspace_id": "bigint",
    "primary_key": "varchar",
    "destination": "varchar",
    "model_name": "varchar",
    "model_id": "bigint",
    "status": "varchar",
    "error": "varchar",
    "started_at": "timestamptz",
    "finished_at": "timestamptz",
    "behavior": "varchar",
    "split_group": "varchar",
    "source_id": "bigint",
    "source_object_id": "bigint",
    "destination_id": "bigint",
    "destination_object_id": "bigint",
    **{name: "bigint" for name in COUNTERS},
    "num_invalid": "bigint",
    "num_redelivered": "bigint",
    "num_records": "bigint",
}
# reference file -> (our table folder, filter on our side, columns)
TABLES = {
    "changelog": ("sync_changelog", None, CHANGELOG_COLUMNS),
    # sync_snapshot is a view over int_sync_logs__snapshot without the removed rows
    "snapshot": ("int_sync_logs__snapshot", "not is_removed", SNAPSHOT_COLUMNS),
    "runs": ("sync_runs", None, RUNS_COLUMNS),
}


def reference_sql(lake: Path, out: Path) -> str:
    def quoted(path: Path) -> str:
        return str(Path(path).resolve()).replace("'", "''")

    return SQL.read_text().replace("${LAKE}", quoted(lake)).replace("${OUT}", quoted(out))


def connect(memory_limit: str | None = None, threads: int | None = None):
    con = duckdb.connect()
    con.execute("set enable_progress_bar = false")
    if memory_limit:
        con.execute(f"set memory_limit = '{memory_limit}'")
    if threads:
        con.execute(f"set threads = {int(threads)}")
    return con


def run_reference(lake: Path, out: Path, memory_limit: str | None = None,
                  threads: int | None = None) -> dict:
    """Compute the reference tables of `lake` into `out`; return DuckDB's settings and seconds."""
    out.mkdir(parents=True, exist_ok=True)
    con = connect(memory_limit, threads)
    started = time.monotonic()
    con.execute(reference_sql(lake, out))
    seconds = time.monotonic() - started
    values = con.execute(
        "select current_setting('memory_limit'), current_setting('threads'), version()"
    ).fetchone()
    settings = dict(zip(("memory_limit", "threads", "duckdb_version"), values, strict=True))
    con.close()
    return {"seconds": round(seconds, 2), "settings": settings}


def _select(source: str, columns: dict[str, str], where: str | None = None) -> str:
    cast = ", ".join(f"cast({name} as {kind}) as {name}" for name, kind in columns.items())
    return f"select {cast} from {source}" + (f" where {where}" if where else "")


def _table_source(folder: Path) -> str:
    pattern = str(folder.resolve() / "**" / "*.parquet").replace("'", "''")
    return f"read_parquet('{pattern}', hive_partitioning = true)"


def _reference_source(reference_dir: Path, name: str) -> str:
    """A reference's output: one parquet file (DuckDB's) or a folder of part files (Spark's)."""
    path = (reference_dir / f"{name}.parquet").resolve()
    pattern = str(path / "*.parquet") if path.is_dir() else str(path)
    return "read_parquet('{}')".format(pattern.replace("'", "''"))


def compare(reference_dir: Path, schema_dir: Path, samples: int = 5) -> dict:
    """Per table: row counts and rows only in ours / only in the reference (EXCEPT ALL)."""
    ours = {name: (table, _select(_table_source(schema_dir / table), columns, where))
            for name, (table, where, columns) in TABLES.items()}
    return _compare(ours, reference_dir, samples)


def compare_references(ours_dir: Path, reference_dir: Path, samples: int = 5) -> dict:
    """`compare` between two references' outputs, `ours_dir`'s standing for ours (e.g. the
    PySpark reference's against the DuckDB reference's)."""
    ours = {name: (f"{name}.parquet", _select(_reference_source(ours_dir, name), columns))
            for name, (_, _, columns) in TABLES.items()}
    return _compare(ours, reference_dir, samples)


def _compare(ours: dict[str, tuple[str, str]], reference_dir: Path, samples: int) -> dict:
    """`ours`: per reference file name, (our table's name, the query of our side)."""
    con = duckdb.connect()
    con.execute("set enable_progress_bar = false")
    con.execute("set timezone = 'UTC'")
    result = {}
    for name, (_, _, columns) in TABLES.items():
        table, query = ours[name]
        theirs = _select(_reference_source(reference_dir, name), columns)
        con.execute(f"create or replace temp table ours as {query}")
        con.execute(f"create or replace temp table ref as {theirs}")
        only_ours = "select * from ours except all select * from ref"
        only_ref = "select * from ref except all select * from ours"
        entry = {
            "ours_table": table,
            "ours_rows": con.execute("select count(*) from ours").fetchone()[0],
            "reference_rows": con.execute("select count(*) from ref").fetchone()[0],
            "only_ours": con.execute(f"select count(*) from ({only_ours})").fetchone()[0],
            "only_reference": con.execute(f"select count(*) from ({only_ref})").fetchone()[0],
        }
        entry["match"] = entry["only_ours"] == 0 and entry["only_reference"] == 0
        if not entry["match"]:
            for side, query in (("only_ours", only_ours), ("only_reference", only_ref)):
                cursor = con.execute(f"{query} order by all limit {samples}")
                names = [d[0] for d in cursor.description]
                entry[f"{side}_samples"] = [
                    {k: (v if isinstance(v, int | float | bool | None) else str(v))
                     for k, v in zip(names, row, strict=True)}
                    for row in cursor.fetchall()
                ]
        result[name] = entry
    con.close()
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lake", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--memory-limit", default=None,
                        help="DuckDB memory_limit (default: its own)")
    parser.add_argument("--threads", type=int, default=None, help="DuckDB threads (default: cores)")
    args = parser.parse_args(argv)
    print(json.dumps(run_reference(args.lake, args.out, args.memory_limit, args.threads)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
