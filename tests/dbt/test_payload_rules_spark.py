"""Payload rules end to end on embedded Spark (mode `package`): a hand-made lake built with
`email` hashed, `phone` dropped and a size limit, through the canonical models and the
membership and field-diff marts. Expected rows are written out by hand from the lake below;
hashes are computed here with hashlib from the documented formula sha256(salt || value)."""

from __future__ import annotations

import hashlib
import json

import pytest
from pyspark.sql import functions as F

from handmade_lake import at, payload, rec, write_run
from sync_logs_dev.dbt_invoke import run_dbt

SCHEMA = "payload_rules"
SALT = "spark-test-salt"
SECRET = "c-private-biography"
BIG = payload(bio=SECRET + " " + "x" * 200, v=1)
NOT_JSON = "not json: d-secret@x.com"
RAW = ["a@x.com", "a2@x.com", "b@x.com", "phone", "555-0101", "555-0202", SECRET,
       "d-secret@x.com"]
VARS = {
    "sync_logs_payload_fields_to_hash": ["email"],
    "sync_logs_payload_fields_to_drop": ["phone"],
    "sync_logs_max_payload_bytes": 150,
}


def h(value: str) -> str:
    return hashlib.sha256((SALT + value).encode("utf-8")).hexdigest()


def marker(text: str) -> str:
    size, digest = len(text.encode("utf-8")), hashlib.sha256(text.encode("utf-8")).hexdigest()
    return f'{{"_sync_logs_truncated":true,"original_bytes":{size},"sha256":"{digest}"}}'


def scan(spark, schema: str, needles: list[str]) -> dict:
    """{(table, column): [needles found]} over every column of every table and view: one
    query per relation."""
    found = {}
    # the schema's own relations: listTables also lists the session's temporary views, which
    # other test modules of this worker may have left
    tables = [t.name for t in spark.catalog.listTables(schema) if not t.isTemporary]
    assert tables, f"nothing to scan in {schema}"
    for table in tables:
        frame = spark.table(f"{schema}.{table}")
        counts = frame.select(
            *[
                F.count(F.when(F.col(f"`{column}`").cast("string").contains(n), 1)).alias(
                    f"{c}_{i}"
                )
                for c, column in enumerate(frame.columns)
                for i, n in enumerate(needles)
            ]
        ).first()
        for c, column in enumerate(frame.columns):
            hits = [n for i, n in enumerate(needles) if counts[f"{c}_{i}"]]
            if hits:
                found[(table, column)] = hits
    return found


@pytest.fixture(scope="module")
def lake_build(spark, tmp_path_factory):
    base = tmp_path_factory.mktemp("payload_rules_spark")
    lake = base / "lake"
    write_run(lake, 1, 10, 100, at(0), {"records_updated.0.parquet": [
        rec("a", payload(email="a@x.com", phone="555-0101", plan="free"), started=at(1)),
        rec("b", payload(email="b@x.com", plan="pro"), started=at(1)),
        rec("c", BIG, started=at(1)),
        rec("d", NOT_JSON, started=at(1)),
    ]})
    write_run(lake, 1, 10, 101, at(60), {
        "records_updated.0.parquet": [
            rec("a", payload(email="a2@x.com", phone="555-0101", plan="free"), started=at(61)),
        ],
        "records_deleted.0.parquet": [
            rec("b", payload(email="b@x.com", plan="pro"), operation="delete", started=at(62)),
        ],
    })
    # only the dropped field changes: the stored payload does not
    write_run(lake, 1, 10, 102, at(120), {"records_updated.0.parquet": [
        rec("a", payload(email="a2@x.com", phone="555-0202", plan="free"), started=at(121)),
    ]})
    # the marts' run fingerprints read the error taxonomy seed
    for command in (["seed", "--select", "sync_logs_error_categories"],
                    ["run", "--select", "path:models/canonical", "+sync_logs__field_diffs",
                     "+sync_logs__current_members", "+sync_logs__audience_events"]):
        run_dbt(
            command,
            target_dir=base / "t",
            dbt_vars={"sync_logs_raw_root": str(lake), **VARS},
            env={"SYNC_LOGS_SCHEMA": SCHEMA, "SYNC_LOGS_PAYLOAD_HASH_SALT": SALT},
        )
    return lake


def rows(spark, table, *columns):
    return sorted((tuple(r) for r in spark.table(f"{SCHEMA}.{table}").select(*columns).collect()),
                  key=lambda r: tuple(map(str, r)))


def test_raw_values_are_in_no_table_or_view(spark, lake_build):
    # the scan finds every needle in the raw record files
    spark.sql("create database if not exists payload_rules_raw")
    spark.read.parquet(str(lake_build / "sync_tracking_datasets" / "1" / "10" / "*" / "*.parquet")
                       ).write.mode("overwrite").saveAsTable("payload_rules_raw.records")
    in_raw = scan(spark, "payload_rules_raw", RAW)
    assert {n for hits in in_raw.values() for n in hits} == set(RAW)
    assert scan(spark, SCHEMA, RAW) == {}


def test_changelog_payloads_flags_and_payload_changed(spark, lake_build):
    a1 = f'{{"email":"{h("a@x.com")}","plan":"free"}}'
    a2 = f'{{"email":"{h("a2@x.com")}","plan":"free"}}'
    b = f'{{"email":"{h("b@x.com")}","plan":"pro"}}'
    assert rows(spark, "sync_changelog", "sync_run_id", "row_id", "op_type", "fields",
                "payload_truncated", "payload_changed", "redelivery_count") == sorted([
        (100, "a", "added", a1, False, True, 0),
        (100, "b", "added", b, False, True, 0),
        (100, "c", "added", marker(BIG), True, True, 0),
        (100, "d", "added", None, False, True, 0),
        (101, "a", "changed", a2, False, True, 0),
        (101, "b", "removed", b, False, False, 0),
        (102, "a", "changed", a2, False, False, 0),
    ], key=lambda r: tuple(map(str, r)))
    assert json.loads(marker(BIG)) == {"_sync_logs_truncated": True,
                                       "original_bytes": len(BIG), "sha256": json.loads(
                                           marker(BIG))["sha256"]}
    # payload_hash (payload_changed, log_id) is taken of the payload after the rules: the text
    # that is not a JSON object as its salted hash, the over-size payload as its marker
    def tagged_sha256(text: str) -> str:
        return hashlib.sha256(f"{len(text)}:{text}".encode()).hexdigest()

    assert rows(spark, "sync_changelog", "row_id", "payload_hash") == sorted([
        ("a", tagged_sha256(a1)), ("a", tagged_sha256(a2)), ("a", tagged_sha256(a2)),
        ("b", tagged_sha256(b)), ("b", tagged_sha256(b)), ("c", tagged_sha256(marker(BIG))),
        ("d", tagged_sha256(h(NOT_JSON))),
    ], key=lambda r: tuple(map(str, r)))


def test_runs_count_truncated_payloads(spark, lake_build):
    assert rows(spark, "sync_runs", "sync_run_id", "num_payloads_truncated", "num_records") == [
        (100, 1, 4), (101, 0, 2), (102, 0, 1)]


def test_field_diffs_and_membership_work_on_hashed_fields(spark, lake_build):
    assert rows(spark, "sync_logs__field_diffs", "row_id", "sync_run_id", "field_name",
                "change_type", "old_value", "new_value") == [
        ("a", 101, "email", "changed", h("a@x.com"), h("a2@x.com")),
    ]
    # the same membership as without any rule: the payload plays no part in it
    assert rows(spark, "sync_logs__current_members", "row_id") == [("a",), ("c",), ("d",)]
    assert rows(spark, "sync_logs__audience_events", "row_id", "event_type", "sync_run_id") == [
        ("a", "entered", 100), ("b", "entered", 100), ("b", "exited", 101),
        ("c", "entered", 100), ("d", "entered", 100)]


def test_quarantine_warns_of_truncated_payloads(spark, lake_build):
    got = rows(spark, "sync_logs_quarantine", "sync_run_id", "severity", "reason", "record_count")
    assert [r for r in got if "sync_logs_max_payload_bytes" in r[2]] == [
        (100, "warning", "1 record(s) whose record_payload is over sync_logs_max_payload_bytes: "
         "loaded with fields = the truncation marker", 1),
    ]
