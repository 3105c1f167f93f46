"""Issue 15 (lose nothing valid): one dbt build, with Spark's ANSI mode on (Spark 4's default),
over a hand-made lake of the inputs that lost records or failed the build: batch files written
by pandas (nanosecond timestamps) and with every other timestamp unit, INT96 and the spec's text
forms, a batch lacking optional columns, batches `.1` and `.01` of one run, a fact file with
one id on two rows and one whose `id` holds `n/a`. Expected rows are written out by hand."""

from __future__ import annotations

from datetime import datetime

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from handmade_lake import RECORD_SCHEMA, at, payload, rec, write_batch, write_facts, write_run
from sync_logs_dev.dbt_invoke import run_dbt

SCHEMA = "canon_ingest"
NAMED = pa.schema([("id", pa.int64()), ("type", pa.string()), ("name", pa.string())])
TEXT_IDS = pa.schema([("id", pa.string()), ("type", pa.string()), ("name", pa.string())])
SOURCE_OBJECTS = pa.schema(
    [("id", pa.int64()), ("type", pa.string()), ("name", pa.string()), ("model_id", pa.int64())]
)


def with_times(time_type: pa.DataType) -> pa.Schema:
    return pa.schema(
        [pa.field(f.name, time_type) if f.name.startswith("batch_") else f for f in RECORD_SCHEMA]
    )


def naive(moment: datetime) -> datetime:
    return moment.replace(tzinfo=None)


def n(minutes: float) -> datetime:
    """at() as Spark returns it: naive UTC."""
    return naive(at(minutes))


@pytest.fixture(scope="module")
def lake_build(spark, tmp_path_factory):
    base = tmp_path_factory.mktemp("canonical_ingest")
    lake = base / "lake"

    # sync 20, run 300: one batch per way of writing batch times
    folder = write_run(lake, 1, 20, 300, at(0))
    pd.DataFrame(  # pandas' defaults: timestamp[ns, tz=UTC], an all-None column of type null
        {
            "identifier": ["a", "b"],
            "record_payload": [payload(v=1), payload(v=1)],
            "operation": ["upsert", "upsert"],
            "status": ["succeeded", "succeeded"],
            "status_message": [None, None],
            "batch_started_at": pd.to_datetime([at(1), at(1)], utc=True),
            "batch_ended_at": pd.to_datetime([at(2), None], utc=True),
        }
    ).to_parquet(folder / "records_updated.0.parquet")
    write_batch(
        folder,
        "records_updated.1.parquet",
        [rec("c", payload(v=1), started=at(3), ended=at(4))],
        schema=with_times(pa.timestamp("s", "UTC")),
    )
    write_batch(
        folder,
        "records_updated.2.parquet",
        [rec("d", payload(v=1), started=naive(at(5)), ended=None)],
        schema=with_times(pa.timestamp("ms")),  # no zone: UTC wall time
    )
    int96 = pa.Table.from_pylist(
        [rec("e", payload(v=1), started=at(6), ended=at(7))], schema=RECORD_SCHEMA
    )
    pq.write_table(
        int96, folder / "records_updated.3.parquet", use_deprecated_int96_timestamps=True
    )
    write_batch(
        folder,
        "records_updated.4.parquet",
        [
            rec("f", payload(v=1), started="2026-10-01 08:10:00 +02:00"),
            rec("g", payload(v=1), started="2026-10-01 06:11:00 UTC"),
            rec("h", payload(v=1), started="garbage", ended="2026-10-01T06:12:00Z"),
        ],
        schema=with_times(pa.string()),
    )
    write_batch(
        folder,
        "records_updated.5.parquet",
        [rec("i", payload(v=1), started=at(13))],
        schema=pa.schema(
            [f for f in RECORD_SCHEMA if f.name not in ("status_message", "batch_ended_at")]
        ),
    )
    write_batch(
        folder,
        "records_updated.6.parquet",
        [rec("j", payload(v=1), started=naive(at(14)), ended=naive(at(15)))],
        schema=with_times(pa.timestamp("ns")),
    )
    # run 301: metadata times in the spec's text forms with a space before the zone
    write_run(
        lake,
        1,
        20,
        301,
        "2026-10-01 09:00:00 +02:00",
        {"records_updated.0.parquet": [rec("a", payload(v=2), started=at(61))]},
        sync_run_finished_at="2026-10-01 07:30:00 UTC",
    )

    # sync 21, run 310: batches .1 and .01 (the same batch number), same batch time
    one = [
        rec("k", payload(v=1), started=at(1)),
        rec("m", payload(v=2), started=at(1)),
        rec("n", payload(v=2), started=at(1)),
    ]
    zero_one = [
        rec("k", payload(v=1), started=at(1)),  # an exact re-delivery of .1's k
        rec("m", payload(v=1), started=at(1)),
        rec("n", payload(v=1), status="rejected", status_message="nope", started=at(1)),
    ]
    write_run(
        lake,
        1,
        21,
        310,
        at(0),
        {"records_updated.1.parquet": one, "records_updated.01.parquet": zero_one},
    )
    write_run(lake, 1, 21, 311, at(60), {"records_updated.0.parquet": [rec("m", payload(v=2))]})

    write_facts(
        lake,
        1,
        "source_objects",
        [
            {"id": 520, "type": "DataWarehouse::Query", "name": "first", "model_id": 620},
            {"id": 520, "type": "DataWarehouse::Query", "name": "second", "model_id": 620},
        ],
        SOURCE_OBJECTS,
    )
    write_facts(
        lake,
        1,
        "destinations",
        [
            {"id": "8", "type": "Salesforce::Connection", "name": "SF prod"},
            {"id": "n/a", "type": "Braze::Connection", "name": "Braze"},
        ],
        TEXT_IDS,
    )
    write_facts(
        lake,
        1,
        "destination_objects",
        [{"id": 820, "type": "Salesforce::ObjectTypes::Contact", "name": "Contact"}],
        NAMED,
    )
    ansi = spark.conf.get("spark.sql.ansi.enabled")
    spark.conf.set("spark.sql.ansi.enabled", "true")  # Spark 4's default, and Databricks'
    try:
        run_dbt(
            ["build", "--select", "path:models/canonical", "path:tests/data"],
            target_dir=base / "t",
            dbt_vars={"sync_logs_raw_root": str(lake), "sync_logs_all_data_tests": True},
            env={"SYNC_LOGS_SCHEMA": SCHEMA},
        )
    finally:
        spark.conf.set("spark.sql.ansi.enabled", ansi)
    return lake


def table(spark, name, *columns, where="true"):
    rows = spark.table(f"{SCHEMA}.{name}").where(where).select(*columns).collect()
    return sorted((tuple(r) for r in rows), key=lambda r: tuple(map(str, r)))


def quarantine(spark):
    rows = table(spark, "sync_logs_quarantine", "severity", "path", "reason", "record_count")
    return [(sev, path.split("/lake/")[1], reason, count) for sev, path, reason, count in rows]


# --- 1. every parquet timestamp unit loads ------------------------------------------------


def test_every_timestamp_unit_loads_as_utc(spark, lake_build):
    assert table(
        spark,
        "sync_changelog",
        "row_id",
        "batch_file",
        "batch_started_at",
        "batch_ended_at",
        where="sync_run_id = 300",
    ) == [
        ("a", "records_updated.0.parquet", n(1), n(2)),  # pandas: ns, UTC
        ("b", "records_updated.0.parquet", n(1), None),
        ("c", "records_updated.1.parquet", n(3), n(4)),  # seconds
        ("d", "records_updated.2.parquet", n(5), None),  # ms, no zone
        ("e", "records_updated.3.parquet", n(6), n(7)),  # INT96
        ("f", "records_updated.4.parquet", n(10), None),  # text, +02:00 after a space
        ("g", "records_updated.4.parquet", n(11), None),  # text, " UTC"
        ("h", "records_updated.4.parquet", None, n(12)),  # text that is no time
        ("i", "records_updated.5.parquet", n(13), None),
        ("j", "records_updated.6.parquet", n(14), n(15)),  # ns, no zone
    ]


def test_no_record_file_is_quarantined(spark, lake_build):
    assert table(spark, "int_sync_logs__record_files", "file_name", where="not is_loaded") == []


def test_unparseable_time_is_flagged_counted_and_reported(spark, lake_build):
    assert table(
        spark,
        "sync_changelog",
        "row_id",
        "timestamp_problem",
        where="timestamp_problem is not null",
    ) == [("h", "batch_started_at is not a timestamp: 'garbage'")]
    assert table(
        spark,
        "sync_runs",
        "sync_run_id",
        "num_records",
        "num_timestamp_errors",
        where="sync_id = 20",
    ) == [(300, 10, 1), (301, 1, 0)]
    assert (
        "warning",
        "sync_tracking_datasets/1/20/300",
        "1 record(s) whose batch_started_at or batch_ended_at is text that is not a timestamp: "
        "loaded as null (see sync_changelog.timestamp_problem)",
        1,
    ) in quarantine(spark)


def test_metadata_times_with_a_space_before_the_zone(spark, lake_build):
    assert table(
        spark, "sync_runs", "sync_run_id", "started_at", "finished_at", where="sync_run_id = 301"
    ) == [(301, datetime(2026, 10, 1, 7, 0), datetime(2026, 10, 1, 7, 30))]


# --- 2. missing optional columns load as nulls --------------------------------------------


def test_batch_without_optional_columns_loads_with_a_warning(spark, lake_build):
    assert table(
        spark,
        "sync_changelog",
        "row_id",
        "status",
        "status_message",
        "batch_ended_at",
        where="batch_file = 'records_updated.5.parquet'",
    ) == [("i", "succeeded", None, None)]
    assert (
        "warning",
        "sync_tracking_datasets/1/20/300/records_updated.5.parquet",
        "missing optional column(s), loaded as null: status_message, batch_ended_at",
        1,
    ) in quarantine(spark)


# --- 5. deterministic everywhere ----------------------------------------------------------


def test_batches_1_and_01_are_ordered_by_file_name(spark, lake_build):
    assert table(
        spark,
        "sync_changelog",
        "sync_run_id",
        "row_id",
        "batch_file",
        "status",
        "op_type",
        "payload_changed",
        "redelivery_count",
        where="sync_id = 21",
    ) == [
        (310, "k", "records_updated.01.parquet", "succeeded", "added", True, 1),
        (310, "m", "records_updated.01.parquet", "succeeded", "added", True, 0),
        (310, "m", "records_updated.1.parquet", "succeeded", "added", True, 0),
        (310, "n", "records_updated.01.parquet", "failed", "added", True, 0),
        (310, "n", "records_updated.1.parquet", "succeeded", "added", True, 0),
        # run 310's state of m is its .1 attempt (v=2): the same payload
        (311, "m", "records_updated.0.parquet", "succeeded", "changed", False, 0),
    ]


def test_snapshot_latest_attempt_is_the_later_file(spark, lake_build):
    assert table(
        spark,
        "sync_snapshot",
        "row_id",
        "sync_run_id",
        "op_type",
        "status",
        "fields",
        where="sync_id = 21",
    ) == [
        ("k", 310, "unchanged", "succeeded", payload(v=1)),
        ("m", 311, "changed", "succeeded", payload(v=2)),
        ("n", 310, "unchanged", "succeeded", payload(v=2)),
    ]


def test_fact_file_with_one_id_on_two_rows_uses_the_last_row(spark, lake_build):
    assert table(spark, "source_objects", "id", "name", "record_source", where="id = 520") == [
        (520, "second", "fact_file")
    ]
    assert (
        "warning",
        "metadata/1/source_objects.parquet",
        "1 id(s) on more than one row: the last row of each id in the file is used",
        1,
    ) in quarantine(spark)


# --- 6. bad values never fail the build ---------------------------------------------------


def test_fact_id_that_is_not_an_integer_is_reported_not_fatal(spark, lake_build):
    assert table(spark, "destinations", "id", "name", "record_source") == [
        (8, "SF prod", "fact_file")
    ]
    assert (
        "warning",
        "metadata/1/destinations.parquet",
        "1 row(s) with a value that is not an integer, loaded as null, in: id",
        1,
    ) in quarantine(spark)


def test_nothing_else_is_quarantined(spark, lake_build):
    assert [row for row in quarantine(spark) if row[0] == "not_loaded"] == []
