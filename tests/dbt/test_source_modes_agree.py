"""One hand-made lake, three source modes, one staged changelog (issue 15, items 7 and 8).

The lake below goes through the package path (Spark, the canonical Python models). The same
runs are then rendered as the tables the SQL source modes read and built on DuckDB:
- `census`: Census's `sync_log`, written here from the lake's records (one row per record,
  Census's names and vocabulary: raw status and operation, no op_type, no run table);
- `tables`: the package's own canonical `sync_changelog`, loaded as "canonical tables
  something else loaded".
The staged changelog (`stg_sync_logs__sync_changelog`) must be the same row for row: in mode
`tables` every column, in mode `census` every column Census can give (not the package's
log_id, org_id, split_group, batch_file or load time). The expected op_type, status,
failed_reason and payload_changed of every record are written by hand next to it. The
package's `sync_snapshot` and the snapshot mode `census` derives must agree too (issue 37,
case 5: a row whose removal was rejected in the latest run reads `changed` in both).

The same build runs the vendors' example queries of the seeds verbatim
(analyses/vendor_examples/, only their relation names resolved) on Spark. (Census's Sync
Tracking DuckDB query reads the raw lake, not a relation of the package: the analysis
census_rejected_records_by_message asks it of `sync_log`.)"""

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import duckdb
import pyarrow as pa
import pytest
from census_tables import CENSUS_SYNC_LOG
from marts_harness import Build, install_package, normalise_rows, unique_schema

import handmade_lake as lake_kit
from sync_logs_dev.dbt_invoke import run_dbt

ORG = 1
DAY = datetime(2026, 10, 1, tzinfo=UTC)
RUN_ERROR = "Destination API unavailable"
CENSUS_LOGGED_AT = datetime(2026, 10, 9, 0, 0)


def p(**fields) -> str:
    return json.dumps(fields, sort_keys=True)


A1, A2 = p(email="a@x.com", plan="free"), p(email="a@x.com", plan="pro")
B1, C1, C2 = p(email="b@x.com"), p(email="c@x.com"), p(email="c@x.com", plan="pro")
D1, D2, E1, F1 = p(email="d1@x.com"), p(email="d2@x.com"), p(email="e@x.com"), p(email="f@x.com")
J1 = p(email="j@x.com")
LOCKED = "Contact is locked"
G1, G2, H1, I1 = p(email="g@x.com"), p(email="g-at-x.com"), p(email="h@x.com"), p(email="i@x.com")
N1, N2 = p(email="anon@x.com"), p(email="anon2@x.com")
X1, Y1 = p(score=1), p(score=2)
P1, P2 = p(event="signup"), p(event="upgrade")

# sync -> (behavior, model_name, source object id, source object type)
SYNCS = {
    1234: ("mirror", "Trial users", 511, "DataWarehouse::Query"),
    2002: ("mirror", "Churn risk", 512, "DataWarehouse::FilterSegmentSource"),
    3003: ("append", "Event log", 513, "DataWarehouse::Table"),
}
# (sync, run) -> (start, run status, run error); sync 2002's run ids run against time order
RUNS = {
    (1234, 5676): (DAY + timedelta(hours=6), "failed", RUN_ERROR),
    (1234, 5677): (DAY + timedelta(days=1, hours=6), "succeeded", None),
    (1234, 5678): (DAY + timedelta(days=2, hours=6), "succeeded", None),
    (1234, 5679): (DAY + timedelta(days=3, hours=6), "succeeded", None),
    (2002, 9002): (DAY + timedelta(hours=7), "succeeded", None),
    (2002, 9001): (DAY + timedelta(days=1, hours=7), "succeeded", None),
    (3003, 7001): (DAY + timedelta(hours=8), "succeeded", None),
    (3003, 7002): (DAY + timedelta(days=1, hours=8), "succeeded", None),
}
# batch file -> minutes after the run's start when it was sent (None: never sent)
SENT = {"records_updated.0.parquet": 1, "records_deleted.0.parquet": 1,
        "records_upsert.1.parquet": 5, "records_created.0.parquet": 1,
        "records_pending.0.parquet": None}

# (sync, run, batch file, identifier, payload, operation, raw status, status message)
#   -> expected (op_type, status, failed_reason, payload_changed), by hand from the contract
RECORDS = [
    # first run: every status of the vocabulary, in the spellings writers use
    (1234, 5676, "records_updated.0.parquet", "a", A1, "upsert", "succeeded", None,
     ("added", "succeeded", None, True)),
    (1234, 5676, "records_updated.0.parquet", "b", B1, "upsert", "rejected",
     "Invalid email address", ("added", "failed", "Invalid email address", True)),
    (1234, 5676, "records_updated.0.parquet", "c", C1, "upsert", "Succeeded", None,
     ("added", "succeeded", None, True)),
    (1234, 5676, "records_updated.0.parquet", None, N1, "upsert", "NULL", None,
     (None, "invalid", "null identifier", None)),
    (1234, 5676, "records_updated.0.parquet", "d", D1, "upsert", "DUPLICATE", None,
     ("added", "invalid", "duplicate identifier", True)),
    (1234, 5676, "records_updated.0.parquet", "d", D2, "upsert", "duplicate", None,
     ("added", "invalid", "duplicate identifier", True)),
    (1234, 5676, "records_updated.0.parquet", "f", F1, "upsert", "skipped", None,
     ("added", "failed", "unknown status: skipped", True)),
    (1234, 5676, "records_pending.0.parquet", "e", E1, "upsert", None, None,
     ("added", "aborted", RUN_ERROR, True)),
    # no identifier and no status: the NULL status whose text was lost
    (1234, 5676, "records_pending.0.parquet", None, N2, "upsert", None, None,
     (None, "invalid", "null identifier", None)),
    # a full resync of a (same payload), b's first success, c leaves (operation padded), g
    (1234, 5677, "records_updated.0.parquet", "a", A1, "upsert", "succeeded", None,
     ("changed", "succeeded", None, False)),
    (1234, 5677, "records_updated.0.parquet", "b", B1, "upsert", "succeeded", None,
     ("added", "succeeded", None, True)),
    (1234, 5677, "records_updated.0.parquet", "c", C1, " Delete ", "succeeded", None,
     ("removed", "succeeded", None, False)),
    (1234, 5677, "records_updated.0.parquet", "g", G1, "append", "succeeded", None,
     ("added", "succeeded", None, True)),
    # deletes; h is deleted, then upserted later in the same run: it ends present
    (1234, 5678, "records_deleted.0.parquet", "a", A1, "delete", "succeeded", None,
     ("removed", "succeeded", None, False)),
    (1234, 5678, "records_deleted.0.parquet", "b", B1, "delete", "rejected", "Contact not found",
     ("removed", "failed", "Contact not found", False)),
    (1234, 5678, "records_deleted.0.parquet", "h", H1, "delete", "succeeded", None,
     ("removed", "succeeded", None, False)),
    (1234, 5678, "records_upsert.1.parquet", "c", C2, "upsert", "succeeded", None,
     ("added", "succeeded", None, True)),
    (1234, 5678, "records_upsert.1.parquet", "h", H1, "upsert", "succeeded", None,
     ("added", "succeeded", None, True)),
    (1234, 5678, "records_upsert.1.parquet", "j", J1, "upsert", "succeeded", None,
     ("added", "succeeded", None, True)),
    # h and b are still present (b's delete was rejected); a re-enters; g's change fails
    (1234, 5679, "records_updated.0.parquet", "h", H1, "upsert", "succeeded", None,
     ("changed", "succeeded", None, False)),
    (1234, 5679, "records_updated.0.parquet", "b", B1, "upsert", "succeeded", None,
     ("changed", "succeeded", None, False)),
    (1234, 5679, "records_updated.0.parquet", "a", A2, "upsert", "succeeded", None,
     ("added", "succeeded", None, True)),
    (1234, 5679, "records_updated.0.parquet", "i", I1, "upsert", "Rejected ",
     "Rate limit exceeded", ("added", "failed", "Rate limit exceeded", True)),
    (1234, 5679, "records_updated.0.parquet", "g", G2, "upsert", "rejected",
     "Invalid email address", ("changed", "failed", "Invalid email address", True)),
    # j's removal is rejected in the sync's latest run: j stays (snapshot: changed / failed)
    (1234, 5679, "records_deleted.0.parquet", "j", J1, "delete", "rejected", LOCKED,
     ("removed", "failed", LOCKED, False)),
    # run ids against time order: 9002 ran first
    (2002, 9002, "records_updated.0.parquet", "x", X1, "upsert", "succeeded", None,
     ("added", "succeeded", None, True)),
    (2002, 9001, "records_updated.0.parquet", "x", X1, "upsert", "succeeded", None,
     ("changed", "succeeded", None, False)),
    (2002, 9001, "records_updated.0.parquet", "y", Y1, "update", "succeeded", None,
     ("added", "succeeded", None, True)),
    # an event log: every append is an add
    (3003, 7001, "records_created.0.parquet", "p", P1, "append", "succeeded", None,
     ("added", "succeeded", None, True)),
    (3003, 7002, "records_created.0.parquet", "p", P2, "Append", "succeeded", None,
     ("added", "succeeded", None, True)),
]


def batch_times(sync, run, batch_file):
    minutes = SENT[batch_file]
    if minutes is None:
        return None, None
    sent = RUNS[(sync, run)][0] + timedelta(minutes=minutes)
    return sent, sent + timedelta(minutes=1)


def write_lake(root: Path) -> None:
    for (sync, run), (started, status, error) in RUNS.items():
        behavior, model_name, source_object_id, _ = SYNCS[sync]
        batches = {}
        for r_sync, r_run, batch, identifier, payload, operation, raw, message, _ in RECORDS:
            if (r_sync, r_run) == (sync, run):
                sent, ended = batch_times(sync, run, batch)
                batches.setdefault(batch, []).append(lake_kit.rec(
                    identifier, payload, operation, raw, message, sent, ended))
        meta = lake_kit.metadata(
            ORG, sync, run, started, behavior, sync_run_status=status, sync_run_error=error,
            sync_run_finished_at=lake_kit.iso(started + timedelta(minutes=30)),
            model_name=model_name, model_id=600 + sync % 100,
            source={"type": "snowflake", "id": 5, "object_id": source_object_id,
                    "object_name": model_name})
        lake_kit.write_run(root, ORG, sync, run, started, meta=meta, batches=batches)
    ids = pa.int64()
    lake_kit.write_facts(
        root, ORG, "source_objects",
        [{"id": object_id, "type": kind, "name": name, "model_id": 600 + sync % 100}
         for sync, (_, name, object_id, kind) in SYNCS.items()],
        pa.schema([("id", ids), ("type", pa.string()), ("name", pa.string()),
                   ("model_id", ids), ("business_object_id", ids),
                   ("filter_segment_id", ids), ("cohort_id", ids)]))
    named = pa.schema([("id", ids), ("type", pa.string()), ("name", pa.string())])
    lake_kit.write_facts(root, ORG, "destinations",
                         [{"id": 8, "type": "Salesforce::Connection", "name": "Salesforce"}],
                         named)
    lake_kit.write_facts(
        root, ORG, "destination_objects",
        [{"id": 800 + sync, "type": "Salesforce::ObjectTypes::Contact", "name": "Contact"}
         for sync in SYNCS], named)


def census_sync_log() -> list[tuple]:
    """The runs as Census writes them into `sync_log`: raw status and operation, the batch
    times, the run's objects. Census has no run table: a run's error can only be in the
    status_message of the records it never attempted."""
    rows = []
    for n, (sync, run, batch, identifier, payload, operation, raw, message, _) in enumerate(
            RECORDS):
        sent, ended = batch_times(sync, run, batch)
        if raw is None and message is None:
            message = RUNS[(sync, run)][2]
        rows.append((f"C{n:03d}", sync, run, identifier, payload, naive(sent), naive(ended),
                     operation, raw, message, CENSUS_LOGGED_AT, 8, 800 + sync, 5,
                     SYNCS[sync][2]))
    return rows


CANONICAL_CHANGELOG = [
    ("log_id", "varchar"), ("org_id", "bigint"), ("sync_id", "bigint"),
    ("sync_run_id", "bigint"), ("op_type", "varchar"), ("row_id", "varchar"),
    ("status", "varchar"), ("failed_reason", "varchar"), ("fields", "varchar"),
    ("split_group", "varchar"), ("operation", "varchar"), ("raw_status", "varchar"),
    ("payload_changed", "boolean"), ("batch_started_at", "timestamp"),
    ("batch_ended_at", "timestamp"), ("batch_file", "varchar"), ("logged_at", "timestamp"),
]
# what Census cannot give: the package's own log id, org, split group, file and load time
CENSUS_LACKS = {"log_id", "org_id", "split_group", "batch_file", "logged_at"}


def naive(moment):
    return None if moment is None else moment.astimezone(UTC).replace(tzinfo=None)


def load_duckdb(path: Path, schema: str, table: str, columns, rows) -> None:
    with duckdb.connect(str(path)) as connection:
        connection.execute(f"create schema if not exists {schema}")
        connection.execute(f"create table {schema}.{table} ("
                           + ", ".join(f"{name} {kind}" for name, kind in columns) + ")")
        connection.executemany(
            f"insert into {schema}.{table} values ({', '.join('?' for _ in columns)})", rows)


def spark_rows(spark, query: str) -> tuple[list[str], list[tuple]]:
    """Rows of a Spark query, timestamps as text in the session's zone (UTC)."""
    frame = spark.sql(query)
    frame = frame.selectExpr(*[
        f"cast(`{f.name}` as string) as `{f.name}`"
        if f.dataType.typeName() in ("timestamp", "timestamp_ntz") else f"`{f.name}`"
        for f in frame.schema.fields
    ])
    return frame.columns, [tuple(r) for r in frame.collect()]


VENDOR_EXAMPLES = {
    "vendor_census_sync_log_of_sync",
    "vendor_census_deleted_records_of_run",
    "vendor_hightouch_most_common_sync_error",
    "vendor_hightouch_entered_and_exited_a_model",
    "vendor_hightouch_current_rows_in_all_models",
}


@pytest.fixture(scope="module")
def package(spark, tmp_path_factory):
    """The lake through the package path on Spark, and the vendor examples compiled."""
    work = tmp_path_factory.mktemp("modes_package")
    lake = work / "lake"
    write_lake(lake)
    schema = unique_schema("modes_package")
    dbt_vars = {"sync_logs_raw_root": str(lake), "sync_logs_vendor_examples": True}
    env = {"SYNC_LOGS_SCHEMA": schema}
    run_dbt(["run", "--select", "+stg_sync_logs__sync_changelog", "+sync_log",
             "+sync_snapshot", "+sync_runs", "+source_objects"],
            target_dir=work, dbt_vars=dbt_vars, env=env)
    compiled = run_dbt(["compile", "--select", "path:analyses/vendor_examples"],
                       target_dir=work, dbt_vars=dbt_vars, env=env)
    analyses = {r.node.name: r.node.compiled_code for r in compiled.result.results}
    return {"schema": schema, "lake": lake, "analyses": analyses}


@pytest.fixture(scope="module")
def package_changelog(spark, package):
    columns, rows = spark_rows(
        spark, f"select * from {package['schema']}.stg_sync_logs__sync_changelog")
    return normalise_rows(columns, rows)


@pytest.fixture(scope="module")
def census_build(tmp_path_factory):
    build = Build("duckdb", tmp_path_factory.mktemp("modes_census"), source="census")
    load_duckdb(build.duckdb_path, build.schema, "census_sync_log", CENSUS_SYNC_LOG,
                census_sync_log())
    named = [("id", "bigint"), ("type", "varchar"), ("name", "varchar")]
    load_duckdb(build.duckdb_path, build.schema, "census_source_objects",
                [*named, ("model_id", "bigint"), ("business_object_id", "bigint"),
                 ("filter_segment_id", "bigint"), ("cohort_id", "bigint")],
                [(object_id, kind, name, 600 + sync % 100, None, None, None)
                 for sync, (_, name, object_id, kind) in SYNCS.items()])
    load_duckdb(build.duckdb_path, build.schema, "census_destinations", named,
                [(8, "Salesforce::Connection", "Salesforce")])
    install_package()
    build.dbt("run", "--select", "+stg_sync_logs__sync_snapshot")
    return build


@pytest.fixture(scope="module")
def census_changelog(census_build):
    return census_build.rows("stg_sync_logs__sync_changelog")


@pytest.fixture(scope="module")
def tables_changelog(spark, package, tmp_path_factory):
    build = Build("duckdb", tmp_path_factory.mktemp("modes_tables"), source="tables")
    names = ", ".join(f"`{name}`" for name, _ in CANONICAL_CHANGELOG)
    _, rows = spark_rows(spark, f"select {names} from {package['schema']}.sync_changelog")
    load_duckdb(build.duckdb_path, build.schema, "fixture_sync_changelog", CANONICAL_CHANGELOG,
                rows)
    install_package()
    build.dbt("run", "--select", "stg_sync_logs__sync_changelog")
    return build.rows("stg_sync_logs__sync_changelog")


def test_package_path_gives_the_hand_written_rules(package_changelog):
    got = sorted(
        (((r["sync_id"], r["sync_run_id"], r["row_id"], r["fields"], r["operation"],
           r["raw_status"]), (r["op_type"], r["status"], r["failed_reason"], r["payload_changed"]))
         for r in package_changelog), key=repr)
    expected = sorted(
        (((float(sync), float(run), identifier, payload, operation, raw), outputs)
         for sync, run, _, identifier, payload, operation, raw, _, outputs in RECORDS), key=repr)
    assert got == expected


def test_census_mode_stages_the_same_changelog_as_the_package(package_changelog,
                                                              census_changelog):
    def shared(rows):
        return sorted(({k: v for k, v in r.items() if k not in CENSUS_LACKS} for r in rows),
                      key=lambda r: [(v is None, str(v)) for v in r.values()])

    assert len(census_changelog) == len(RECORDS)
    assert shared(census_changelog) == shared(package_changelog)


def same_time_text(rows):
    """Spark and DuckDB write fractions of a second differently (`.5` / `.500000`)."""
    times = {"batch_started_at", "batch_ended_at", "logged_at"}
    return [{k: (datetime.fromisoformat(v).isoformat(sep=" ") if k in times and v else v)
             for k, v in row.items()} for row in rows]


def test_tables_mode_stages_the_same_changelog_as_the_package(package_changelog,
                                                              tables_changelog):
    assert len(tables_changelog) == len(RECORDS)
    assert same_time_text(tables_changelog) == same_time_text(package_changelog)


# the snapshot columns both modes derive alike: the success times too (batch end, else batch
# start, else run start: tests/data/snapshot_times.csv), not last_attempted_at (Census's run
# starts at its first batch sent, so its unsent record e reads 06:01 where the package's 06:00)
SNAPSHOT_SHARED = ["sync_id", "sync_run_id", "op_type", "row_id", "status", "failed_reason",
                   "fields", "split_group", "last_succeeded_at", "first_added_at"]


def snapshot_rows(rows):
    return sorted(tuple(row[c] for c in SNAPSHOT_SHARED) for row in rows)


def test_census_mode_derives_the_same_snapshot_as_the_package(spark, package, census_build):
    columns, rows = spark_rows(spark, f"select * from {package['schema']}.sync_snapshot")
    package_rows = snapshot_rows(normalise_rows(columns, rows))
    census_rows = snapshot_rows(census_build.rows("stg_sync_logs__sync_snapshot"))
    assert census_rows == package_rows
    # by hand: j was added in run 5678, its removal rejected in the latest run 5679
    # (its success times: run 5678's second batch, sent at 06:05, ended at 06:06)
    assert [r for r in package_rows if r[3] == "j"] == [
        (1234.0, 5679.0, "changed", "j", "failed", LOCKED, J1, None,
         "2026-10-03 06:06:00", "2026-10-03 06:06:00")]
    assert {r[2] for r in package_rows} == {"added", "changed", "unchanged"}


def vendor_rows(spark, package, name):
    """The rows of a vendor example as dicts (`select *` of a join may repeat a name, e.g.
    org_id: the last one wins)."""
    frame = spark.sql(package["analyses"][name])
    return [dict(zip(frame.columns, tuple(row), strict=True)) for row in frame.collect()]


def test_every_vendor_example_is_compiled(package):
    assert set(package["analyses"]) == VENDOR_EXAMPLES


def test_census_sync_log_of_sync_1234_verbatim(spark, package):
    rows = vendor_rows(spark, package, "vendor_census_sync_log_of_sync")
    expected = [(run, identifier, operation, raw)
                for sync, run, _, identifier, _, operation, raw, _, _ in RECORDS if sync == 1234]
    assert sorted(((r["sync_run_id"], r["record_identifier"], r["operation"], r["status"])
                   for r in rows), key=repr) == sorted(expected, key=repr)
    # Census's column names, joined to the source object
    assert {r["name"] for r in rows} == {"Trial users"}
    assert all(r["_census_logged_at"] is not None for r in rows)
    assert all(r["_census_logged_at"] == r["logged_at"] for r in rows)


def test_census_deleted_records_of_run_5678_verbatim(spark, package):
    rows = vendor_rows(spark, package, "vendor_census_deleted_records_of_run")
    assert sorted(((r["record_identifier"], r["status"], r["status_message"], r["type"])
                   for r in rows), key=repr) == [
        ("a", "succeeded", None, "DataWarehouse::Query"),
        ("b", "rejected", "Contact not found", "DataWarehouse::Query"),
        ("h", "succeeded", None, "DataWarehouse::Query"),
    ]


def test_hightouch_most_common_sync_error_verbatim(spark, package):
    rows = vendor_rows(spark, package, "vendor_hightouch_most_common_sync_error")
    # the snapshot's latest attempt of d, e, f, g, i and j did not succeed
    assert sorted((r["failure_reason"], r["c"]) for r in rows) == [
        (LOCKED, 1), (RUN_ERROR, 1), ("Invalid email address", 1), ("Rate limit exceeded", 1),
        ("duplicate identifier", 1), ("unknown status: skipped", 1),
    ]


def test_hightouch_entered_and_exited_a_model_verbatim(spark, package):
    rows = vendor_rows(spark, package, "vendor_hightouch_entered_and_exited_a_model")
    assert rows
    assert {r["type"] for r in rows} <= {"added", "removed"}
    assert {r["audience"] for r in rows} == {"Trial users", "Churn risk", "Event log"}
    assert list(rows[0]) == ["user_id", "audience", "type", "timestamp"]


def test_hightouch_current_rows_in_all_models_verbatim(spark, package):
    rows = vendor_rows(spark, package, "vendor_hightouch_current_rows_in_all_models")
    # rows whose latest attempt did not fail (invalid and aborted ones too); c left and came
    # back, a left and came back, x and y are in Churn risk, p in the event log
    assert sorted((r["model_name"], r["user_id"]) for r in rows) == [
        ("Churn risk", "x"), ("Churn risk", "y"), ("Event log", "p"),
        ("Trial users", "a"), ("Trial users", "b"), ("Trial users", "c"),
        ("Trial users", "d"), ("Trial users", "e"), ("Trial users", "h"),
    ]
