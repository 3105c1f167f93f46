"""`sync-logs demo`: generate a demo lake, `dbt build` everything on embedded Spark, summarise."""

import json
import time
from pathlib import Path

from sync_logs.dbt_invoke import PROJECT_DIR, example_profiles_dir, run_dbt
from sync_logs.generator import generate_lake
from sync_logs.spark import local_session

DEMO_LAKE = PROJECT_DIR / "target" / "demo_lake"
DEMO_REPORT = PROJECT_DIR / "target" / "sync_logs_report.html"
SCHEMA = "sync_logs"

RUNS_BY_STATUS = """
select coalesce(status, 'unknown') as status, count(*) as runs, sum(num_records) as records
from {schema}.sync_runs
group by coalesce(status, 'unknown')
"""

TOP_ERRORS = """
select failed_reason, count(*) as attempts, count(distinct sync_id, row_id) as distinct_rows
from {schema}.sync_changelog
where status = 'failed'
group by failed_reason
order by attempts desc, failed_reason
limit 5
"""

ROWS_ADDED_REMOVED = """
select sync_id, max(model_name) as model_name, count(*) as runs,
       sum(num_succeeded_add) as rows_added, sum(num_succeeded_remove) as rows_removed
from {schema}.sync_runs
group by sync_id
order by sync_id
"""

INCIDENTS_BY_KIND = """
select kind, severity, status, count(*) as incidents, sum(runs_affected) as runs_affected
from {schema}.sync_logs__incidents
group by kind, severity, status
order by kind, severity, status
"""

OPEN_INCIDENTS = """
select sync_id, model_name, kind, error_class, severity, opened_at, runs_affected, failed_reason
from {schema}.sync_logs__incidents
where status = 'open'
order by severity, opened_at, sync_id, kind, error_class
limit 15
"""


def print_table(title: str, rows: list, columns: list[str]) -> None:
    cells = [[("" if row[c] is None else str(row[c])) for c in columns] for row in rows]
    widths = [max([len(c), *(len(r[i]) for r in cells)]) for i, c in enumerate(columns)]
    print(f"\n{title}")
    print("  " + "  ".join(c.ljust(w) for c, w in zip(columns, widths, strict=True)))
    for r in cells:
        print("  " + "  ".join(v[:60].ljust(w) for v, w in zip(r, widths, strict=True)))


def summarise(spark, schema: str = SCHEMA) -> None:
    queries = [
        ("Runs by status", RUNS_BY_STATUS, ["status", "runs", "records"]),
        ("Top errors", TOP_ERRORS, ["failed_reason", "attempts", "distinct_rows"]),
        (
            "Rows added and removed per sync",
            ROWS_ADDED_REMOVED,
            ["sync_id", "model_name", "runs", "rows_added", "rows_removed"],
        ),
        ("Incidents by kind", INCIDENTS_BY_KIND,
         ["kind", "severity", "status", "incidents", "runs_affected"]),
        ("Open incidents (the first 15)", OPEN_INCIDENTS,
         ["sync_id", "model_name", "kind", "error_class", "severity", "opened_at",
          "runs_affected", "failed_reason"]),
    ]
    for title, sql, columns in queries:
        print_table(title, spark.sql(sql.format(schema=schema)).collect(), columns)


def write_demo_report(lake: Path, out: Path = DEMO_REPORT):
    """`sync-logs report` over the demo's tables, on the same local target and session."""
    from sync_logs.report import write_report
    from sync_logs.warehouse import Warehouse

    target_dir = (PROJECT_DIR / "target").resolve()
    warehouse = Warehouse([
        "--project-dir", str(PROJECT_DIR),
        "--profiles-dir", str(example_profiles_dir(target_dir)),
        "--target-path", str(target_dir / "dbt"),
        "--vars", json.dumps({"raw_root": str(lake)}),
    ])
    return write_report(out, warehouse)


def run_demo(lake: Path = DEMO_LAKE, records: int = 200_000, seed: int = 7,
             report: Path | None = DEMO_REPORT) -> None:
    started = time.monotonic()
    if not (lake / "sync_tracking_datasets").exists():
        generate_lake(lake, syncs=8, runs_per_sync=12, records=records, seed=seed, progress=True)
    spark = local_session()
    run_dbt(["build"], dbt_vars={"raw_root": str(lake)})
    summarise(spark)
    if report is not None:
        result = write_demo_report(lake, report)
        print(f"\nReport: {result.path} ({result.bytes / 1e6:.2f} MB, written in "
              f"{result.seconds:.0f} s): open it in a browser.")
    print(f"\nDemo done in {time.monotonic() - started:.0f} s; tables under target/warehouse/"
          + (f", the report in {report}." if report is not None else "."))
