"""Payload rules in the SQL staging layer, on PostgreSQL 15, over the `tables` fixture.

The fixture's canonical tables are seeded into a source schema (sync 202's row c2 is given an
over-size payload there); the package is built into another schema with `email` hashed,
`plan` dropped and a size limit. Then: no raw email, no `plan` field and none of the over-size
text is in any relation of the built schema (the same scan finds them in the source schema);
field diffs still show the changes of the hashed field; membership is what it is without
the rules (the rows test_marts_engines writes out); the hashes and the truncation marker are
the ones the Spark models write for the same payloads."""

import hashlib
import json

import pytest
from marts_harness import PROFILES, PROJECT, install_package, pg_connect, unique_schema
from pyspark.sql import functions as F

from sync_logs.canonical import payloads as payload_rules
from sync_logs.canonical import records as record_reading
from sync_logs_dev.dbt_invoke import run_dbt

SALT = "pg-test-salt"
RULES = {
    "sync_logs_payload_fields_to_hash": ["email"],
    "sync_logs_payload_fields_to_drop": ["plan"],
    "sync_logs_max_payload_bytes": 200,
}
RAW_EMAILS = ["anon@x.com", "u1@x.com", "u2-at-x.com", "u2@x.com", "u3@x.com", "u4@x.com",
              "u5a@x.com", "u5b@x.com", "u6@x.com", "u7@x.com"]
SECRET = "c2-private-biography"
BIG = json.dumps({"bio": SECRET + " " + "x" * 300, "score": 0.5})


def h(value: str) -> str:
    return hashlib.sha256((SALT + value).encode("utf-8")).hexdigest()


def dbt(args, schema, work, dbt_vars, salt=SALT):
    return run_dbt(
        [*args, "--target", "postgres"],
        project_dir=PROJECT,
        target_dir=work,
        dbt_vars={"sync_logs_source": "tables", **dbt_vars},
        env={"SYNC_LOGS_SCHEMA": schema, "SYNC_LOGS_PAYLOAD_HASH_SALT": salt},
        profiles_dir=PROFILES,
    )


def query(sql: str) -> list[tuple]:
    connection = pg_connect()
    try:
        with connection.cursor() as cursor:
            cursor.execute(sql)
            return cursor.fetchall() if cursor.description else []
    finally:
        connection.close()


def scan(schema: str, needles: list[str]) -> dict:
    """{(relation, column): [needles found]} over every column of every table and view: one
    query per relation."""
    columns = query(
        "select table_name, column_name from information_schema.columns "
        f"where table_schema = '{schema}' order by table_name, column_name"
    )
    assert columns, f"nothing to scan in {schema}"
    per_table: dict[str, list[str]] = {}
    for table, column in columns:
        per_table.setdefault(table, []).append(column)
    found = {}
    for table, table_columns in per_table.items():
        counts = query(
            "select " + ", ".join(
                f"""count(*) filter (where cast("{column}" as text) like '%{needle}%')"""
                for column in table_columns for needle in needles
            ) + f' from "{schema}"."{table}"'
        )[0]
        for c, column in enumerate(table_columns):
            hits = [n for i, n in enumerate(needles) if counts[c * len(needles) + i]]
            if hits:
                found[(table, column)] = hits
    return found


@pytest.fixture(scope="module")
def pg(tmp_path_factory):
    work = tmp_path_factory.mktemp("payload_rules_pg")
    source, built = unique_schema("payload_src"), unique_schema("payload_out")
    install_package()
    try:
        dbt(["seed", "--select", "tag:fixture_tables"], source, work / "src", {})
        for table in ("fixture_sync_changelog", "fixture_sync_snapshot"):
            query(f"update {source}.{table} set fields = '{BIG}' where row_id = 'c2'")
        dbt_vars = {**RULES, "sync_logs_tables_schema": source}
        dbt(["seed", "--select", "package:sync_logs"], built, work / "out", dbt_vars)
        dbt(["run", "--select", "package:sync_logs"], built, work / "out", dbt_vars)
        yield {"source": source, "built": built, "work": work}
    finally:
        for schema in (source, built):
            query(f"drop schema if exists {schema} cascade")


def rows(schema, relation, *columns):
    return sorted(query(f"select {', '.join(columns)} from {schema}.{relation}"),
                  key=lambda r: [(v is None, str(v)) for v in r])


def test_raw_values_are_in_no_relation_of_the_built_schema(pg):
    needles = [*RAW_EMAILS, '"plan"', SECRET]
    # the scan can find them: every needle is in the source tables
    in_source = scan(pg["source"], needles)
    assert {n for hits in in_source.values() for n in hits} == set(needles)
    assert scan(pg["built"], needles) == {}


def test_field_diffs_show_changes_of_hashed_fields_and_drop_dropped_ones(pg):
    got = rows(pg["built"], "sync_logs__field_diffs", "sync_id", "row_id", "sync_run_id",
               "previous_sync_run_id", "field_name", "change_type", "old_value", "new_value")
    # test_marts_engines' rows without the rules, with email hashed and plan gone
    assert got == sorted([
        (101, "u1", 1004, 1002, "seats", "changed", "1", "2"),
        (101, "u2", 1003, 1002, "email", "changed", h("u2@x.com"), h("u2-at-x.com")),
        (101, "u2", 1004, 1003, "email", "changed", h("u2-at-x.com"), h("u2@x.com")),
        (101, "u3", 1002, 1001, "score", "changed", "1", "2"),
        (101, "u3", 1004, 1003, "score", "changed", "2", "3"),
        (101, "u3", 1005, 1004, "score", "changed", "3", "4"),
        (202, "c1", 2001, 2003, "note", "appeared", None, "x"),
        (202, "c1", 2001, 2003, "score", "changed", "0.9", "0.7"),
        (202, "c1", 2002, 2001, "note", "disappeared", "x", None),
        (202, "c1", 2002, 2001, "tier", "changed", "gold", None),
    ], key=lambda r: [(v is None, str(v)) for v in r])


def test_membership_is_what_it_is_without_the_rules(pg):
    # the rows test_marts_engines writes out for the same fixture without any rule
    assert rows(pg["built"], "sync_logs__current_members", "sync_id", "row_id",
                "latest_status", "latest_failed_reason") == [
        (101, "u2", "succeeded", None),
        (101, "u3", "succeeded", None),
        (101, "u4", "failed", "Contact not found"),
        (202, "c1", "failed", "Rate limit exceeded, retry later"),
        (202, "c2", "succeeded", None),
    ]
    events = rows(pg["built"], "sync_logs__audience_events", "sync_id", "row_id",
                  "event_number", "event_type", "sync_run_id")
    assert [e for e in events if e[0] == 202] == [
        (202, "c1", 1, "entered", 2003),
        (202, "c2", 1, "entered", 2002),
        (202, "c3", 1, "entered", 2001),
        (202, "c3", 2, "exited", 2002),
    ]
    history = rows(pg["built"], "sync_logs__membership_history", "sync_id", "row_id",
                   "entered_sync_run_id", "exited_sync_run_id", "is_current")
    assert history == [
        (101, "u1", 1001, 1003, False),
        (101, "u1", 1004, 1005, False),
        (101, "u2", 1002, None, True),
        (101, "u3", 1001, None, True),
        (101, "u4", 1001, None, True),
        (202, "c1", 2003, None, True),
        (202, "c2", 2002, None, True),
        (202, "c3", 2001, 2002, False),
    ]


def test_hashes_and_marker_are_the_ones_spark_writes(pg, spark):
    staged = dict(query(
        f"select log_id, fields from {pg['built']}.stg_sync_logs__sync_changelog "
        "where log_id in ('L06', 'L28')"))
    flags = dict(query(
        f"select row_id, bool_or(payload_truncated) from {pg['built']}"
        ".stg_sync_logs__sync_changelog group by row_id"))
    rules = payload_rules.payload_rules(
        json.dumps(RULES["sync_logs_payload_fields_to_drop"]),
        json.dumps(RULES["sync_logs_payload_fields_to_hash"]), SALT, "200")
    frame = spark.createDataFrame(
        [(1, '{"email": "u2@x.com", "plan": "free"}', None), (2, BIG, None)],
        "row_index bigint, record_payload string, payload_problem string",
    )
    for name in record_reading.RECORD_COLUMNS:
        if name not in frame.columns:
            frame = frame.withColumn(name, F.lit(None))
    frame = frame.selectExpr(
        *[f"cast({c} as {t})" for c, t in (
            part.strip().split(" ") for part in record_reading.RECORD_SCHEMA.split(","))]
    ).withColumn("payload_truncated", F.lit(False))
    spark_written = {
        r["row_index"]: r["record_payload"]
        for r in payload_rules.protect_payloads(frame, rules).collect()
    }
    # the same hash (PostgreSQL re-serialises the rewritten object, so compare as JSON)
    assert json.loads(staged["L06"]) == json.loads(spark_written[1]) == {"email": h("u2@x.com")}
    # the same marker, byte for byte
    assert staged["L28"] == spark_written[2]
    assert json.loads(staged["L28"])["original_bytes"] == len(BIG.encode("utf-8"))
    assert flags == {**{row: False for row in flags if row != "c2"}, "c2": True}


def test_hashing_without_a_salt_is_refused(pg):
    work = pg["work"] / "no_salt"
    with pytest.raises(RuntimeError, match="dbt compile .* failed"):
        dbt(["compile", "--select", "stg_sync_logs__sync_changelog"], pg["built"], work,
            {**RULES, "sync_logs_tables_schema": pg["source"]}, salt="")
    log = (work / "logs" / "dbt.log").read_text()
    assert "SYNC_LOGS_PAYLOAD_HASH_SALT" in log
