"""Mode `package` end to end: the fixture of tests/dbt/project, written as the raw lake the
sync engine leaves (run folders with metadata.json and a parquet batch, plus metadata fact
files), goes through this package's Python models and then the SQL marts on the embedded
Spark. Every mart must equal the marts built from the hand-written canonical tables (mode
`tables`, on DuckDB; those are checked against hand-written rows in test_marts_engines.py).

The same Spark warehouse is then read by the user's tools, as after `make demo`: `sync-logs
notify` (each format, dry run and posts to a loopback webhook, with its state table) and
`sync-logs report`, through the checkout's project on the `local` target.
"""

import hashlib
import importlib.util
import re
import sys
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa
import pytest
from marts_harness import MARTS, Build, normalise_rows, unique_schema

from sync_logs import cli
from sync_logs.notify import NotifyOptions, notify
from sync_logs.warehouse import Warehouse, dbt_common_args
from sync_logs_dev.dbt_invoke import run_dbt
from webhook_stub import webhook

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import handmade_lake  # noqa: E402  (tests/ helper, imported by path like the other tests)

PROJECT_DIR = Path(__file__).resolve().parents[2]  # the checkout
FIXTURE = Path(__file__).resolve().parent / "project" / "scripts" / "write_fixture.py"


def load_fixture():
    spec = importlib.util.spec_from_file_location("sync_logs_fixture", FIXTURE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def write_lake(root: Path) -> None:
    fixture = load_fixture()
    runs = {(r[0], r[1]): r for r in fixture.RUNS}
    for (sync_id, run), (_, _, started, finished, status, error) in runs.items():
        name, model_id, source_object_id, destination, destination_id, object_id = (
            fixture.SYNCS[sync_id])
        start = fixture.ts(started)
        sent = start + fixture.timedelta(minutes=1)
        records = [
            handmade_lake.rec(
                row_id, fixture.json.dumps(fields), operation, raw,
                reason if raw == "rejected" else None,
                None if status_ == "aborted" else sent.replace(tzinfo=fixture_utc()),
                None if status_ == "aborted"
                else (sent + fixture.timedelta(minutes=1)).replace(tzinfo=fixture_utc()),
            )
            for (_, s, r, row_id, _, status_, reason, fields, operation, raw, _)
            in fixture.RECORDS if (s, r) == (sync_id, run)
        ]
        meta = handmade_lake.metadata(
            fixture.ORG, sync_id, run, start.replace(tzinfo=fixture_utc()),
            sync_run_finished_at=(fixture.ts(finished).strftime("%Y-%m-%dT%H:%M:%SZ")
                                  if finished else None),
            sync_run_status=status, sync_run_error=error, model_name=name, model_id=model_id,
            source={"type": "snowflake", "id": 5, "object_id": source_object_id,
                    "object_name": name},
            destination={"type": destination, "id": destination_id, "object_id": object_id,
                         "object_type": "", "object_name": ""},
        )
        handmade_lake.write_run(root, fixture.ORG, sync_id, run, start, meta=meta,
                                batches={"records_updated.0.parquet": records})
    ids = pa.int64()
    handmade_lake.write_facts(
        root, fixture.ORG, "source_objects",
        [dict(zip(["id", "type", "name", "model_id", "business_object_id", "filter_segment_id",
                   "cohort_id"], row, strict=True)) for row in fixture.SOURCE_OBJECTS],
        pa.schema([("id", ids), ("type", pa.string()), ("name", pa.string()),
                   ("model_id", ids), ("business_object_id", ids),
                   ("filter_segment_id", ids), ("cohort_id", ids)]))
    for name, rows in (("destinations", fixture.DESTINATIONS),
                       ("destination_objects", fixture.DESTINATION_OBJECTS)):
        handmade_lake.write_facts(
            root, fixture.ORG, name,
            [dict(zip(["id", "type", "name"], row, strict=True)) for row in rows],
            pa.schema([("id", ids), ("type", pa.string()), ("name", pa.string())]))


def fixture_utc():
    from datetime import UTC

    return UTC


@dataclass
class PackageBuild:
    work: Path
    schema: str
    dbt_vars: dict

    def tool_args(self) -> list[str]:
        """The dbt flags a user gives `sync-logs notify` or `report` for this build."""
        return dbt_common_args(PROJECT_DIR, self.work / "profiles", None,
                               self.work / "tools", self.dbt_vars)

    def tool_env(self, patch: pytest.MonkeyPatch) -> None:
        """The profile's schema, and dbt's log beside the build's (not in the checkout)."""
        patch.setenv("SYNC_LOGS_SCHEMA", self.schema)
        patch.setenv("DBT_LOG_PATH", str(self.work / "logs"))


@pytest.fixture(scope="module")
def package_build(spark, tmp_path_factory):
    work = tmp_path_factory.mktemp("marts_package")
    lake = work / "lake"
    write_lake(lake)
    schema = unique_schema("marts_package")
    # the integration project's reference time: the same incidents as test_marts_engines'
    dbt_vars = {"sync_logs_raw_root": str(lake), "sync_logs_reference_time": "2026-10-09 00:00:00",
                "sync_logs_all_data_tests": True}
    # cautious: leave out the tests that also read canonical relations the marts do not need
    # the unit tests run in test_marts_engines, on this engine too
    run_dbt(["build", "--select", "+path:models/marts", "--indirect-selection", "cautious",
             "--exclude", "resource_type:unit_test"],
            project_dir=PROJECT_DIR,
            target_dir=work, dbt_vars=dbt_vars,
            env={"SYNC_LOGS_SCHEMA": schema})
    return PackageBuild(work, schema, dbt_vars)


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    return Build("duckdb", tmp_path_factory.mktemp("marts_package_reference")).build()


@pytest.mark.parametrize("mart", MARTS)
def test_package_mode_gives_the_marts_of_the_canonical_fixture(spark, package_build,
                                                               reference, mart):
    frame = spark.table(f"{package_build.schema}.{mart}")
    frame = frame.selectExpr(*[
        f"cast(`{f.name}` as string) as `{f.name}`"
        if f.dataType.typeName() in ("timestamp", "timestamp_ntz") else f"`{f.name}`"
        for f in frame.schema.fields
    ])
    rows = normalise_rows(frame.columns, [tuple(r) for r in frame.collect()])
    assert rows == reference.rows(mart)


def incident_id(sync_id: int, kind: str, error_class: str | None, opened_run: int) -> str:
    return hashlib.md5(f"{sync_id}|{kind}|{error_class or ''}|{opened_run}".encode()).hexdigest()


# The fixture's incidents (test_marts_engines.test_incidents_of_the_fixture) in the order notify
# sends them: by change time (resolved_at, else opened_at: the opening run's start), then id.
AT_1005 = sorted([
    (incident_id(101, "run_failed", None, 1005), "open"),
    (incident_id(101, "failed_records", None, 1005), "open"),
    (incident_id(101, "new_error_class", "not_found", 1005), "open"),
    (incident_id(101, "new_error_class", "timeout", 1005), "open"),
    (incident_id(101, "new_error_class", "destination_server_error", 1005), "open"),
    (incident_id(101, "slow_run", None, 1005), "open"),
])
INCIDENT_ORDER = [
    (incident_id(202, "failed_records", None, 2003), "open"),  # opened 10-01 07:00
    (incident_id(101, "failed_records", None, 1001), "resolved"),  # resolved 10-02 06:04
    (incident_id(101, "failed_records", None, 1003), "resolved"),  # resolved 10-04 06:03
    *AT_1005,  # opened 10-05 06:00
    (incident_id(101, "stale", None, 1005), "open"),  # opened 10-08 06:00
]
FIRST_TITLE = "New critical incident: failed_records on sync 202 (Churn risk → Braze::Connection)"
FORMAT_MARKS = {"slack": '"blocks"', "teams": '"AdaptiveCard"', "json": '"incident.opened"'}


@pytest.fixture(scope="module")
def tools(package_build):
    """The Spark warehouse as `sync-logs notify` and `report` read it (dbt parsed once)."""
    with pytest.MonkeyPatch.context() as patch:
        package_build.tool_env(patch)
        yield Warehouse(package_build.tool_args())


def sync_logs_cli(package_build, *args: str) -> int:
    with pytest.MonkeyPatch.context() as patch:
        package_build.tool_env(patch)
        return cli.main([*args, *package_build.tool_args()])


def state_table(package_build) -> str:
    return f"{package_build.schema}.sync_logs_notifications"


@pytest.mark.parametrize("fmt", ["slack", "teams", "json"])
def test_notify_dry_run_from_the_command_line_on_spark(spark, package_build, capfd, fmt):
    # issue 37's first use after `make demo`: sync-logs notify --format slack --dry-run
    code = sync_logs_cli(package_build, "notify", "--format", fmt, "--dry-run")
    out, err = capfd.readouterr()
    assert code == 0, err
    assert f"--- {FIRST_TITLE} [{INCIDENT_ORDER[0][0]} open]" in out and FORMAT_MARKS[fmt] in out
    assert out.rstrip().endswith(f"dry run: 10 message(s) for channel '{fmt}' not sent")
    assert not spark.catalog.tableExists(state_table(package_build))  # nothing recorded


def test_notify_posts_each_incident_once_per_channel_and_records_it_on_spark(
        spark, package_build, tools, monkeypatch):
    def send(fmt: str):
        options = NotifyOptions(fmt=fmt, channel=f"spark-{fmt}", min_interval_seconds=0.0,
                                url_env="SYNC_LOGS_TEST_WEBHOOK")
        return notify(tools, options, out=lambda line: None)

    with webhook() as hook:
        monkeypatch.setenv("SYNC_LOGS_TEST_WEBHOOK", hook.url)
        results = {fmt: send(fmt) for fmt in ("slack", "teams", "json")}
        again = send("json")  # reads the state table back
    for fmt, result in results.items():
        assert (result.sent, result.failed) == (INCIDENT_ORDER, []), fmt
    assert (again.pending, again.sent) == (0, [])
    bodies = hook.bodies()
    assert len(bodies) == 30
    assert bodies[0]["blocks"][0]["text"]["text"] == f":rotating_light: *{FIRST_TITLE}*"
    card = bodies[10]["attachments"][0]["content"]
    assert (card["type"], card["body"][0]["text"]) == ("AdaptiveCard", FIRST_TITLE)
    assert bodies[20]["title"] == FIRST_TITLE and bodies[20]["incident"] == {
        "incident_id": INCIDENT_ORDER[0][0], "sync_id": 202, "model_name": "Churn risk",
        "destination": "Braze::Connection", "kind": "failed_records", "severity": "critical",
        "status": "open", "opened_at": "2026-10-01 07:00:00",
        "last_seen_at": "2026-10-03 07:00:00", "resolved_at": None, "runs_affected": 3,
        "rows_affected": 3, "failed_reason": "Unauthorized: invalid API key"}
    recorded = spark.sql(f"select channel, incident_id, status, cast(sent_at as string) "
                         f"from {state_table(package_build)}").collect()
    assert sorted((r[0], r[1], r[2]) for r in recorded) == sorted(
        (f"spark-{fmt}", *key) for fmt in results for key in INCIDENT_ORDER)
    assert all(re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d", r[3]) for r in recorded)


def test_report_reads_every_section_on_spark(package_build, capfd):
    out_file = package_build.work / "report.html"
    code = sync_logs_cli(package_build, "report", "--out", str(out_file))
    assert code == 0, capfd.readouterr().err  # 1: a section could not be read
    page = out_file.read_text(encoding="utf-8")
    assert "target type sparksession" in page and 'class="error"' not in page
    kpis = {label: value for value, label in re.findall(
        r'<div class="kpi-value">([^<]*)</div><div class="kpi-label">([^<]*)</div>', page)}
    # 2 syncs; 6 of the 7 runs with a status succeeded (2002 has none); 8 open incidents
    assert {k: kpis[k] for k in ("syncs", "run success rate", "open incidents")} == {
        "syncs": "2", "run success rate": "85.7 %", "open incidents": "8"}
    assert ">8 runs<" in page and ">3 critical<" in page
