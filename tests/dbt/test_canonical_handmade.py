"""One dbt build over a small hand-made lake: metadata fallbacks, key aliases end to end,
sync_log ids, snapshot membership through the view, quarantine reasons. Expected rows are
written out by hand from the lake below."""

from __future__ import annotations

import json
import os
from datetime import datetime

import pyarrow as pa
import pytest

from handmade_lake import at, metadata, payload, rec, run_dir, write_batch, write_facts, write_run
from sync_logs_dev.dbt_invoke import run_dbt

SCHEMA = "canon_hand"
SOURCE_OBJECTS = pa.schema(
    [
        ("id", pa.int64()),
        ("type", pa.string()),
        ("name", pa.string()),
        ("model_id", pa.int64()),
        ("business_object_id", pa.int64()),
        ("filter_segment_id", pa.int64()),
        ("cohort_id", pa.int64()),
    ]
)
NAMED = pa.schema([("id", pa.int64()), ("type", pa.string()), ("name", pa.string())])


def naive(minutes: float) -> datetime:
    """at() as Spark returns it: naive, in the session time zone (UTC)."""
    return at(minutes).replace(tzinfo=None)


def camel_metadata(org, sync, run, started, **extra) -> dict:
    """The oldest writer's spelling: camelCase keys, nested ones too, completed_at alias."""
    doc = metadata(org, sync, run, started, **extra)
    doc["completed_at"] = doc.pop("sync_run_finished_at")

    def camel(key):
        head, *rest = key.split("_")
        return head + "".join(part.capitalize() for part in rest)

    return {
        camel(k): (
            {camel(kk): vv for kk, vv in v.items()}
            if isinstance(v, dict) and k in ("source", "destination")
            else v
        )
        for k, v in doc.items()
    }


@pytest.fixture(scope="module")
def lake_build(spark, tmp_path_factory):
    base = tmp_path_factory.mktemp("canonical_handmade")
    lake = base / "lake"
    write_run(
        lake,
        1,
        10,
        100,
        at(0),
        {
            "records_updated.0.parquet": [
                rec("a", payload(v=1), started=at(1), ended=at(2)),
                rec(
                    "b",
                    payload(v=1),
                    status="rejected",
                    status_message="bad email",
                    started=at(1),
                    ended=at(2),
                ),
                rec("d", payload(v=1), started=at(1), ended=at(2)),
            ],
            "records_deleted.0.parquet": [
                rec("c", payload(v=1), operation="delete", started=at(3), ended=at(4))
            ],
        },
    )
    meta = camel_metadata(
        1, 10, 101, "2026-10-01T09:00:00+02:00", sync_run_finished_at="2026-10-01T07:30:00"
    )
    write_run(
        lake,
        1,
        10,
        101,
        at(60),
        {
            "records_updated.0.parquet": [rec("a", payload(v=2), started=at(61), ended=None)],
            # d's removal is rejected in the sync's latest run: d stays, `changed` / failed
            "records_deleted.0.parquet": [
                rec(
                    "d",
                    payload(v=1),
                    operation="delete",
                    status="rejected",
                    status_message="Contact is locked",
                    started=at(62),
                    ended=at(63),
                )
            ],
        },
        meta=meta,
    )
    # A file of run 101 lacking a column: quarantined, the rest of the run loads.
    write_batch(
        run_dir(lake, 1, 10, 101),
        "records_updated.1.parquet",
        [{"identifier": "z", "record_payload": "{}"}],
        schema=pa.schema([("identifier", pa.string()), ("record_payload", pa.string())]),
    )
    (run_dir(lake, 1, 10, 101) / "README").write_text("notes")
    write_run(lake, 1, 10, 102, at(120), meta="{not json")
    write_run(lake, 1, 11, 200, at(30))  # a brand-new sync, no records, objects not in facts
    write_facts(
        lake,
        1,
        "source_objects",
        [
            {"id": 510, "type": "DataWarehouse::Query", "name": "Trials", "model_id": 610},
        ],
        SOURCE_OBJECTS,
    )
    newer = write_facts(
        lake,
        2,
        "source_objects",
        [
            {"id": 510, "type": "DataWarehouse::Query", "name": "Trials v2", "model_id": 610},
        ],
        SOURCE_OBJECTS,
    )
    older = lake / "metadata" / "1" / "source_objects.parquet"
    os.utime(older, (1_700_000_000, 1_700_000_000))
    os.utime(newer, (1_800_000_000, 1_800_000_000))
    write_facts(
        lake,
        1,
        "destinations",
        [{"id": 8, "type": "Salesforce::Connection", "name": "SF prod"}],
        NAMED,
    )
    write_facts(
        lake,
        1,
        "destination_objects",
        [
            {"id": 810, "type": "Salesforce::ObjectTypes::Contact", "name": "Contact"},
        ],
        NAMED,
    )
    run_dbt(
        ["build", "--select", "path:models/canonical", "path:tests/data"],
        target_dir=base / "t",
        dbt_vars={"sync_logs_raw_root": str(lake), "sync_logs_all_data_tests": True},
        env={"SYNC_LOGS_SCHEMA": SCHEMA},
    )
    return lake


def table(spark, name, *columns):
    return sorted(
        (tuple(r) for r in spark.table(f"{SCHEMA}.{name}").select(*columns).collect()),
        key=lambda r: tuple(map(str, r)),
    )


def test_source_objects_latest_file_wins_and_run_metadata_fills_gaps(spark, lake_build):
    assert table(spark, "source_objects", "id", "type", "name", "model_id", "record_source") == [
        (510, "DataWarehouse::Query", "Trials v2", 610, "fact_file"),
        (511, None, "src", 611, "run_metadata"),
    ]


def test_destinations_and_objects_with_fallbacks(spark, lake_build):
    assert table(spark, "destinations", "id", "type", "name", "record_source") == [
        (8, "Salesforce::Connection", "SF prod", "fact_file"),
    ]
    assert table(spark, "destination_objects", "id", "type", "name", "record_source") == [
        (810, "Salesforce::ObjectTypes::Contact", "Contact", "fact_file"),
        (811, "Salesforce::ObjectTypes::Contact", "Contact", "run_metadata"),
    ]


def test_camel_case_run_is_loaded_with_converted_times(spark, lake_build):
    assert table(
        spark,
        "sync_runs",
        "sync_run_id",
        "started_at",
        "finished_at",
        "source_object_id",
        "destination_object_id",
        "num_records",
        "num_planned_add",
        "num_planned_change",
        "num_planned_remove",
        "num_failed_add",
        "num_quarantined_files",
    ) == [
        (100, datetime(2026, 10, 1, 6, 0), None, 510, 810, 4, 3, 0, 1, 1, 0),
        (
            101,
            datetime(2026, 10, 1, 7, 0),
            datetime(2026, 10, 1, 7, 30),
            510,
            810,
            2,
            0,
            1,
            1,
            0,
            1,
        ),
        (200, datetime(2026, 10, 1, 6, 30), None, 511, 811, 0, 0, 0, 0, 0, 0),
    ]


def test_sync_log_shape_and_ids(spark, lake_build):
    assert table(
        spark,
        "sync_log",
        "sync_run_id",
        "record_identifier",
        "status",
        "status_message",
        "operation",
        "source_object_id",
        "destination_id",
    ) == [
        (100, "a", "succeeded", None, "upsert", 510, 8),
        (100, "b", "rejected", "bad email", "upsert", 510, 8),
        (100, "c", "succeeded", None, "delete", 510, 8),
        (100, "d", "succeeded", None, "upsert", 510, 8),
        (101, "a", "succeeded", None, "upsert", 510, 8),
        (101, "d", "rejected", "Contact is locked", "delete", 510, 8),
    ]


def test_snapshot_view_hides_removed_rows(spark, lake_build):
    # c's removal succeeded: absent. d's was rejected: still there, `changed` (the snapshot
    # has no `removed`) with the removal's status and reason, run and time; its last success
    # and first addition are run 100's.
    assert table(
        spark,
        "sync_snapshot",
        "sync_id",
        "row_id",
        "sync_run_id",
        "op_type",
        "status",
        "failure_reason",
        "latest_op_type",
        "last_attempted_at",
        "last_succeeded_at",
        "first_added_at",
    ) == [
        (10, "a", 101, "changed", "succeeded", None, "changed", naive(61), naive(61), naive(2)),
        (10, "b", 100, "unchanged", "failed", "bad email", "added", naive(1), None, None),
        (10, "d", 101, "changed", "failed", "Contact is locked", "removed", naive(62), naive(2),
         naive(2)),
    ]


def test_quarantine_lists_each_problem_with_its_reason(spark, lake_build):
    rows = table(spark, "sync_logs_quarantine", "item_type", "severity", "path", "reason")
    got = [
        (kind, severity, path.split("/lake/")[1], reason) for kind, severity, path, reason in rows
    ]
    assert got == [
        (
            "file",
            "not_loaded",
            "sync_tracking_datasets/1/10/101/README",
            "stray file: neither metadata.json nor <batch_type>.<batch_number>.parquet",
        ),
        (
            "file",
            "not_loaded",
            "sync_tracking_datasets/1/10/101/records_updated.1.parquet",
            "missing required column(s): operation, status",
        ),
        (
            "run_folder",
            "not_loaded",
            "sync_tracking_datasets/1/10/102",
            "metadata.json is not a JSON object",
        ),
    ]


def test_metadata_text_is_kept_verbatim(spark, lake_build):
    texts = table(spark, "int_sync_logs__run_manifest", "sync_run_id", "metadata_text")
    assert json.loads(dict(texts)[101])["syncRunStartedAt"] == "2026-10-01T09:00:00+02:00"
