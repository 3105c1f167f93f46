"""Record lookup (`sync_logs.record_history`, `dbt run-operation sync_logs.lookup_record`) and
the CSV export of rejected records (analysis `sync_logs_export_rejected_records` through
`sync-logs export-csv`), on embedded Spark and PostgreSQL, over the integration project's
hand-written fixture (tests/dbt/project/seeds/tables) in source mode `tables`.

Only the seeds and the staging views are built: both features read the staged changelog and
runs. Every expected row below is read off the fixture by hand."""

import csv
import json
import re

import pytest
from marts_harness import PROFILES, PROJECT, Build, install_package

from sync_logs import cli

ENGINES = ("postgres", "spark")
ANSI = re.compile(r"\x1b\[[0-9;]*m")


@pytest.fixture(scope="module")
def builds(spark, tmp_path_factory):
    install_package()
    done = {}
    try:
        for engine in ENGINES:
            build = Build(engine, tmp_path_factory.mktemp(f"lookup_{engine}"), spark=spark)
            done[engine] = build
            build.dbt("seed", "--select", "tag:fixture_tables", "package:sync_logs")
            build.dbt("run", "--select", "sync_logs.staging")
        yield done
    finally:
        for build in done.values():
            build.drop()


def lookup(build, capfd, args: str) -> list[str]:
    """The lines `dbt run-operation sync_logs.lookup_record` printed (dbt's own log lines,
    which start with a time, left out)."""
    capfd.readouterr()
    build.dbt("run-operation", "sync_logs.lookup_record", "--args", args)
    lines = ANSI.sub("", capfd.readouterr().out).splitlines()
    return [line for line in lines if line and not re.match(r"\d\d:\d\d:\d\d ", line)]


def failed_lookup(build, capfd, args: str) -> str:
    capfd.readouterr()
    with pytest.raises(RuntimeError):
        build.dbt("run-operation", "sync_logs.lookup_record", "--args", args)
    return ANSI.sub("", capfd.readouterr().out)


@pytest.mark.parametrize("engine", ENGINES)
def test_lookup_prints_the_history_of_one_row(builds, engine, capfd):
    # u2: its add failed (rate limit) and was retried; a change to a bad email was rejected,
    # then email and plan changed. An add lists every field; a change, what differs from the
    # row's previous attempt, failed or not.
    assert lookup(builds[engine], capfd, "{row_id: u2, sync_id: 101}") == [
        "history of row_id 'u2' in sync 101: 4 attempt(s), oldest first",
        "sync_id | sync_run_id | run_started_at      | status    | op_type | failed_reason"
        "                    | changed_fields",
        "------- | ----------- | ------------------- | --------- | ------- | ------------"
        "-------------------- | --------------",
        "101     | 1001        | 2026-10-01 06:00:00 | failed    | added   | Rate limit exceeded,"
        " retry later | email, plan",
        "101     | 1002        | 2026-10-02 06:00:00 | succeeded | added   |"
        "                                  | email, plan",
        "101     | 1003        | 2026-10-03 06:00:00 | failed    | changed | Invalid email address"
        "            | email",
        "101     | 1004        | 2026-10-04 06:00:00 | succeeded | changed |"
        "                                  | email, plan",
    ]


@pytest.mark.parametrize("engine", ENGINES)
def test_lookup_orders_by_run_start_and_cuts_long_values(builds, engine, capfd):
    # sync 202's runs started in the order 2003, 2001, 2002; c1's note appeared, then its
    # tier went to null and the note disappeared; without sync_id every sync is searched
    assert lookup(builds[engine], capfd, "{row_id: c1, max_width: 12}") == [
        "history of row_id 'c1': 3 attempt(s), oldest first",
        "sync_id | sync_run_id | run_started_at | status    | op_type | failed_reason"
        " | changed_fields",
        "------- | ----------- | -------------- | --------- | ------- | -------------"
        " | --------------",
        "202     | 2003        | 2026-10-0...   | succeeded | added   |"
        "               | score, ta...",
        "202     | 2001        | 2026-10-0...   | succeeded | changed |"
        "               | note, score",
        "202     | 2002        | 2026-10-0...   | failed    | changed | Rate limi..."
        "  | note, tier",
    ]


@pytest.mark.parametrize("engine", ENGINES)
def test_lookup_of_an_unknown_row_says_so(builds, engine, capfd):
    build = builds[engine]
    for args, where in (("{row_id: nobody}", "row_id 'nobody'"),
                        ("{row_id: c1, sync_id: 101}", "row_id 'c1' in sync 101"),
                        ("{row_id: \"it's\"}", "row_id 'it's'")):
        (line,) = lookup(build, capfd, args)
        assert line == (f"no record with {where} in {build.schema}.stg_sync_logs__sync_changelog"
                        " (sync_logs_source: tables)")


@pytest.mark.parametrize("args, message", [
    ("{sync_id: 101}", "row_id (the record's identifier) is required"),
    ("{row_id: [u1, u2]}", "row_id (the record's identifier) is required"),
    ("{row_id: u1, sync_id: abc}", "sync_id must be a sync's id (a whole number), got 'abc'"),
    ("{row_id: u1, syncid: 101}", "unknown argument(s) syncid"),
    ("{row_id: u1, max_width: 3}", "max_width must be a whole number of at least 10"),
])
def test_lookup_with_bad_arguments_says_how_to_call_it(builds, capfd, args, message):
    output = failed_lookup(builds["postgres"], capfd, args)
    assert f"sync_logs.lookup_record: {message}" in output


def test_lookup_before_the_staging_views_exist_says_what_to_build(builds, capfd, tmp_path):
    fresh = Build("postgres", tmp_path)  # a new, empty schema
    output = failed_lookup(fresh, capfd, "{row_id: u1}")
    assert "stg_sync_logs__sync_changelog" in output
    assert "which does not exist: build the package's staging models first" in output


def history(build, row_id: str, sync_id: int | None = None) -> list[tuple]:
    call = f"sync_logs.record_history('{row_id}'" + (f", {sync_id})" if sync_id else ")")
    result = build.dbt("show", "--inline", "{{ " + call + " }}", "--limit", "-1")
    table = result.result.results[0].agate_table
    columns = ("sync_run_id", "attempt_number", "log_id", "op_type", "status",
               "failed_reason", "changed_fields")
    return [tuple(None if row[c] is None else str(row[c]) for c in columns)
            for row in table.rows]


@pytest.mark.parametrize("engine", ENGINES)
def test_record_history_rows(builds, engine):
    build = builds[engine]
    # u1 was removed twice; a removal that sends the same payload changes nothing, a re-add
    # sends every field again
    assert history(build, "u1", 101) == [
        ("1001", "1", "L01", "added", "succeeded", None, "email, plan, seats"),
        ("1002", "2", "L05", "changed", "succeeded", None, "plan"),
        ("1003", "3", "L09", "removed", "succeeded", None, None),
        ("1004", "4", "L14", "added", "succeeded", None, "email, plan, seats"),
        ("1005", "5", "L17", "removed", "succeeded", None, None),
    ]
    # two records of one run with the same identifier: both invalid, in log order
    assert history(build, "u5") == [
        ("1003", "1", "L12", "added", "invalid", "duplicate identifier", "email"),
        ("1003", "2", "L13", "added", "invalid", "duplicate identifier", "email"),
    ]
    # u3's retry of an unchanged payload in run 1003 changes nothing
    assert [row[-1] for row in history(build, "u3")] == ["email, score", "score", None,
                                                         "score", "score"]


HEADER = ["sync_id", "model_name", "sync_run_id", "run_started_at", "row_id", "op_type",
          "status", "raw_status", "failed_reason", "batch_started_at", "payload", "log_id"]
RUN_1005 = [  # the latest run with rejected or invalid records; its aborted record is neither
    ["101", "High-intent trial users", "1005", "2026-10-05 06:00:00", "u4", "removed",
     "failed", "rejected", "Contact not found", "2026-10-05 06:01:00",
     '{"email": "u4@x.com"}', "L19"],
    ["101", "High-intent trial users", "1005", "2026-10-05 06:00:00", "u7", "added",
     "failed", "rejected", "Request timed out after 30s", "2026-10-05 06:01:00",
     '{"email": "u7@x.com"}', "L20"],
]
RUN_1003_FIRST_TWO = [  # failed before invalid, then by reason and identifier
    ["101", "High-intent trial users", "1003", "2026-10-03 06:00:00", "u2", "changed",
     "failed", "rejected", "Invalid email address", "2026-10-03 06:01:00",
     '{"email": "u2-at-x.com", "plan": "free"}', "L10"],
    ["101", "High-intent trial users", "1003", "2026-10-03 06:00:00", "u5", "added",
     "invalid", "DUPLICATE", "duplicate identifier", "2026-10-03 06:01:00",
     '{"email": "u5a@x.com"}', "L12"],
]
RUN_1002 = [  # no identifier: empty row_id and op_type (the seed loader reads the fixture's
    # raw status, the text NULL, as null)
    ["101", "High-intent trial users", "1002", "2026-10-02 06:00:00", "", "", "invalid",
     "", "null identifier", "2026-10-02 06:01:00", '{"email": "anon@x.com"}', "L08"],
]


def export(build, out, *options: str) -> int:
    profiles = PROFILES if build.engine != "spark" else build.work / "profiles"
    target = [] if build.engine == "spark" else ["--target", build.engine]
    return cli.main([
        "export-csv", "--out", str(out), *options, "--project-dir", str(PROJECT),
        "--profiles-dir", str(profiles), *target,
        "--target-path", str(build.work / "export"), "--vars", json.dumps(build.dbt_vars),
    ])


def read_csv(path) -> list[list[str]]:
    with open(path, newline="", encoding="utf-8") as handle:
        return list(csv.reader(handle))


@pytest.mark.parametrize("engine", ENGINES)
def test_export_csv_writes_the_rejected_records_of_a_run(builds, engine, tmp_path,
                                                         monkeypatch, capsys):
    build = builds[engine]
    monkeypatch.setenv("SYNC_LOGS_SCHEMA", build.schema)
    cases = [((), RUN_1005), (("--sync-run-id", "1003", "--limit", "2"), RUN_1003_FIRST_TWO),
             (("--sync-run-id", "1002"), RUN_1002), (("--sync-run-id", "2"), [])]
    for number, (options, rows) in enumerate(cases):
        out = tmp_path / f"export_{number}.csv"
        assert export(build, out, *options) == 0
        assert read_csv(out) == [HEADER, *rows], options
        assert f"wrote {len(rows)} records to {out}" in capsys.readouterr().out


def test_export_csv_with_a_bad_var_fails_with_the_reason(builds, tmp_path, monkeypatch,
                                                         capsys):
    build = builds["postgres"]
    monkeypatch.setenv("SYNC_LOGS_SCHEMA", build.schema)
    out = tmp_path / "bad.csv"
    bad = dict(build.dbt_vars, sync_logs_export_limit="all")
    assert cli.main([
        "export-csv", "--out", str(out), "--project-dir", str(PROJECT), "--profiles-dir",
        str(PROFILES), "--target", "postgres", "--target-path", str(build.work / "export"),
        "--vars", json.dumps(bad),
    ]) == 2
    error = capsys.readouterr().err
    assert error.startswith("sync-logs export-csv: error: dbt show --select "
                            "sync_logs_export_rejected_records")
    assert "var sync_logs_export_limit must be a whole number of at least 1, got 'all'" in error
    assert not out.exists()
