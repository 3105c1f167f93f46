"""`sync-logs export-csv`: a sample of the rejected or invalid records of one run as a CSV file.

Runs the package's analysis `sync_logs_export_rejected_records` with `dbt show` in this process
(on whatever target and project the caller names: the analysis reads the staged changelog, so
any warehouse and source mode works) and writes the rows it returns with the csv module.
"""

from __future__ import annotations

import csv
import datetime as dt
import decimal
import json
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

import yaml

ANALYSIS = "sync_logs_export_rejected_records"


class ExportError(ValueError):
    """dbt could not produce the rows (parse, compile or query failure)."""


def csv_text(value: object) -> str:
    """One CSV cell: empty for null, ISO text for times, plain digits for numbers."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dt.datetime | dt.date):
        return value.isoformat(sep=" ") if isinstance(value, dt.datetime) else value.isoformat()
    if isinstance(value, decimal.Decimal):
        return format(value.normalize(), "f") if value == value.to_integral_value() else str(value)
    return str(value)


def write_csv(path: Path, columns: Sequence[str], rows: Iterable[Sequence[object]]) -> int:
    """Writes a header and the rows (RFC 4180 quoting, UTF-8); returns the number of rows."""
    count = 0
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(columns)
        for row in rows:
            writer.writerow([csv_text(value) for value in row])
            count += 1
    return count


def export_vars(
    user_vars: str | None, sync_run_id: int | None, limit: int | None
) -> dict[str, object]:
    """The `--vars` of the dbt call: the caller's (YAML or JSON text), then our two options."""
    merged = yaml.safe_load(user_vars) if user_vars else {}
    if not isinstance(merged, Mapping):
        raise ExportError(f"--vars must be a YAML mapping, got {user_vars!r}")
    merged = dict(merged)
    if sync_run_id is not None:
        merged["sync_logs_export_sync_run_id"] = sync_run_id
    if limit is not None:
        merged["sync_logs_export_limit"] = limit
    return merged


def show_analysis(dbt_args: Sequence[str]) -> tuple[list[str], list[tuple]]:
    """`dbt show` of the analysis with every row; returns its column names and rows."""
    from dbt.cli.main import dbtRunner

    command = ["show", "--select", ANALYSIS, "--limit", "-1", "--log-level", "warn",
               *dbt_args]
    result = dbtRunner().invoke(command)
    runs = list(getattr(result.result, "results", None) or [])
    if not result.success or len(runs) != 1 or runs[0].agate_table is None:
        reasons = [str(result.exception)] if result.exception else []
        reasons += [r.message for r in runs if getattr(r, "message", None)]
        if result.success and not runs:
            reasons.append(f"the analysis {ANALYSIS} was not selected: is the sync_logs "
                           "package installed (dbt deps) in this project?")
        reason = "; ".join(reasons) or "see the dbt log"
        raise ExportError(f"dbt {' '.join(command)} failed: {reason}")
    table = runs[0].agate_table
    return list(table.column_names), [tuple(row.values()) for row in table.rows]


def export_rejected_records(
    out: Path,
    *,
    sync_run_id: int | None = None,
    limit: int | None = None,
    project_dir: str | None = None,
    profiles_dir: str | None = None,
    target: str | None = None,
    target_path: str | None = None,
    user_vars: str | None = None,
) -> int:
    """Writes the analysis' rows to `out`; returns how many records it wrote."""
    args: list[str] = []
    for flag, value in (("--project-dir", project_dir), ("--profiles-dir", profiles_dir),
                        ("--target", target), ("--target-path", target_path)):
        if value is not None:
            args += [flag, str(value)]
    dbt_vars = export_vars(user_vars, sync_run_id, limit)
    if dbt_vars:
        args += ["--vars", json.dumps(dbt_vars, default=str)]
    columns, rows = show_analysis(args)
    out.parent.mkdir(parents=True, exist_ok=True)
    return write_csv(out, columns, rows)
