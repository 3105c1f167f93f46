"""`sync-logs-dev demo`: generate a demo lake, build on embedded Spark what a user looks at first
and run the data tests on it, summarise, write the report.

The demo runs the sync_logs dbt project of a checkout: `project_dir` (`--project-dir`), by
default the checkout (`sync_logs_dev.checkout.checkout_dir()`, a clear error when there is none).
Its lake, report and dbt target go under <project_dir>/target/ unless given."""

import json
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

from sync_logs.spark import local_session
from sync_logs_dev.checkout import checkout_dir
from sync_logs_dev.dbt_invoke import example_profiles_dir, run_dbt
from sync_logs_dev.generator import generate_lake

#: The demo's lake and report, under the project folder.
DEMO_LAKE = Path("target") / "demo_lake"
#: What the demo generated, in `<lake>.demo.json` beside (not inside) its lake: the
#: generator's arguments and the reference time of the freshness check.
DEMO_LAKE_INFO_SUFFIX = ".demo.json"
#: The freshness check's reference time is this long after the lake's last run starts: every
#: demo sync has run within 3 of its intervals (the shortest is 10 minutes) but the one the
#: incident scenario stopped early, so only that one is `stale` (against the current time,
#: every sync of a lake generated in the past would be).
REFERENCE_DELAY = timedelta(minutes=10)
DEMO_REPORT = Path("target") / "sync_logs_report.html"
SCHEMA = "sync_logs"

#: What the demo builds, so that it answers in about two minutes: the canonical tables, the
#: staging views, and the marts the summary and the report read, with their ancestors (the
#: seed among them). `make test` builds the rest.
DEMO_SELECT = [
    "tag:sync_logs_canonical", "tag:sync_logs_staging",
    *(f"+{mart}" for mart in (
        "sync_logs__incidents", "sync_logs__run_anomalies", "sync_logs__sync_health",
        "sync_logs__errors", "sync_logs__new_errors", "sync_logs__audience_events",
        "sync_logs__row_operations")),
]
#: The checks a user's build runs: the data tests on the public relations it builds (the
#: canonical tables and the marts), by default only those of the lake (var
#: `sync_logs_all_data_tests` adds the rest). Left to `make test`: the unit tests, the singular
#: reconciliations, and the tests on the intermediate models, the staging views and the seed.
DEMO_EXCLUDE = [
    "test_type:unit", "test_type:singular",
    "resource_type:test,*int_sync_logs__*", "resource_type:test,*stg_sync_logs__*",
    "resource_type:test,*sync_logs_error_categories_*",
]

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


def write_demo_report(lake: Path, out: Path, reference: str | None = None,
                      project_dir: Path | None = None):
    """`sync-logs report` over the demo's tables, on the same local target and session."""
    from sync_logs.report import write_report
    from sync_logs.warehouse import Warehouse

    project_dir = (project_dir or checkout_dir()).resolve()
    target_dir = project_dir / "target"
    warehouse = Warehouse([
        "--project-dir", str(project_dir),
        "--profiles-dir", str(example_profiles_dir(target_dir, project_dir)),
        "--target-path", str(target_dir / "dbt"),
        "--vars", json.dumps({"sync_logs_raw_root": str(lake)} | (
            {"sync_logs_reference_time": reference} if reference else {})),
    ])
    return write_report(out, warehouse)


def reference_time(manifest: dict) -> str:
    """`sync_logs_reference_time` for a generated lake: REFERENCE_DELAY after its last run
    started, rounded up to the minute, as UTC `YYYY-MM-DD HH:MM:SS`."""
    last = max(datetime.fromisoformat(run["started_at"].replace("Z", "+00:00"))
               for run in manifest["runs"])
    moment = last.astimezone(timezone.utc) + REFERENCE_DELAY
    moment = moment.replace(second=0, microsecond=0) + timedelta(minutes=1)
    return moment.strftime("%Y-%m-%d %H:%M:%S")


def prepare_demo_lake(lake: Path, records: int = 200_000, seed: int = 7, *,
                      own_lake: bool = False) -> dict:
    """Generate the demo lake (the incident scenario: every kind of incident, see
    generator.SCENARIO_ROLES) unless `lake` already holds it; returns its info (generator
    arguments, reference time), also kept in `<lake>.demo.json` beside the lake.

    A demo lake of other arguments, or one from before the scenario (no info file), is
    generated again (`own_lake`: the demo's default lake); any other existing lake (`--lake`
    given) is used as it is, and its freshness is checked against the current time
    (reference time None)."""
    args = {"syncs": 8, "runs_per_sync": 12, "records": records, "seed": seed,
            "incidents": True}
    lake = lake.resolve()
    info_path = lake.with_name(lake.name + DEMO_LAKE_INFO_SUFFIX)
    info = None
    if info_path.exists():
        info = json.loads(info_path.read_text(encoding="utf-8"))
    if (lake / "sync_tracking_datasets").exists():
        if info is not None and info.get("generator") == args:
            return info
        if info is None and not own_lake:
            print(f"Using the existing lake {lake} as it is: its freshness is checked "
                  "against the current time.")
            return {"generator": None, "reference_time": None}
    summary = generate_lake(lake, **args, progress=True, overwrite=True)
    info = {"generator": args, "reference_time": reference_time(summary.manifest),
            "scenario": summary.manifest["scenario"]}
    info_path.write_text(json.dumps(info, indent=1) + "\n", encoding="utf-8")
    return info


def run_demo(lake: Path | None = None, records: int = 200_000, seed: int = 7,
             report: Path | None = DEMO_REPORT, project_dir: Path | None = None) -> None:
    """The demo on the dbt project `project_dir` (default the checkout). `lake`: default
    <project_dir>/target/demo_lake; a relative `report` goes under the project folder."""
    started = time.monotonic()
    project_dir = (project_dir or checkout_dir()).resolve()
    lake = (project_dir / DEMO_LAKE if lake is None else lake).resolve()
    own_lake = lake == project_dir / DEMO_LAKE
    if report is not None and not report.is_absolute():
        report = project_dir / report
    info = prepare_demo_lake(lake, records, seed, own_lake=own_lake)
    reference = info["reference_time"]
    if reference is not None:
        print(f"Freshness reference time (sync_logs_reference_time): {reference} UTC")
    spark = local_session()
    dbt_vars = {"sync_logs_raw_root": str(lake)} | (
        {"sync_logs_reference_time": reference} if reference else {})
    run_dbt(["build", "--select", *DEMO_SELECT, "--exclude", *DEMO_EXCLUDE],
            project_dir=project_dir, dbt_vars=dbt_vars)
    summarise(spark)
    if report is not None:
        result = write_demo_report(lake, report, reference, project_dir)
        print(f"\nReport: {result.path} ({result.bytes / 1e6:.2f} MB, written in "
              f"{result.seconds:.0f} s): open it in a browser.")
    print(f"\nDemo done in {time.monotonic() - started:.0f} s; tables under target/warehouse/"
          + (f", the report in {report}." if report is not None else "."))
