"""Issue 15 (lose nothing valid), the rule functions on small inputs: every parquet timestamp
unit and the spec's text forms, optional columns, stable tie-breaks, safe casts of fact ids.
Expected values are written out by hand next to each input."""

import io
from datetime import UTC, datetime, timedelta

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from pyspark.sql import functions as F

from handmade_lake import RECORD_SCHEMA
from record_rows import read_record
from sync_logs.canonical import changelog as changelog_rules
from sync_logs.canonical import inspection
from sync_logs.canonical import objects as object_rules
from sync_logs.canonical import records as record_reading
from sync_logs.canonical import snapshot as snapshot_rules
from sync_logs.canonical import values as value_rules

EXPECTED = {"expected_sync_id": 10, "expected_sync_run_id": 100}
T0 = datetime(2026, 10, 1, 6, 0, 0, 123456, tzinfo=UTC)


def parquet_bytes(table: pa.Table, **options) -> bytes:
    sink = io.BytesIO()
    pq.write_table(table, sink, **options)
    return sink.getvalue()


def one_record(time_type: pa.DataType, value) -> pa.Table:
    schema = pa.schema(
        [pa.field(f.name, time_type) if f.name.startswith("batch_") else f for f in RECORD_SCHEMA]
    )
    return pa.Table.from_pydict(
        {
            "identifier": ["a"],
            "record_payload": ['{"v": 1}'],
            "operation": ["upsert"],
            "status": ["succeeded"],
            "status_message": [None],
            "batch_started_at": [value],
            "batch_ended_at": [None],
        },
        schema=schema,
    )


# --- 1. every parquet timestamp unit loads -------------------------------------------------


@pytest.mark.parametrize(
    ("time_type", "options", "read_as"),
    [
        (pa.timestamp("ns", "UTC"), {}, "bigint"),  # pandas' default
        (pa.timestamp("ns"), {}, "bigint"),
        (pa.timestamp("us", "UTC"), {}, "timestamp"),
        (pa.timestamp("us"), {}, "timestamp_ntz"),
        (pa.timestamp("ms", "UTC"), {}, "timestamp"),
        (pa.timestamp("s", "UTC"), {}, "timestamp"),  # parquet stores seconds as millis
        (pa.timestamp("s"), {}, "timestamp_ntz"),
        (pa.timestamp("ns", "UTC"), {"use_deprecated_int96_timestamps": True}, "timestamp"),
        (pa.timestamp("ns", "UTC"), {"version": "1.0"}, "timestamp"),  # coerced to micros
        (pa.string(), {}, "string"),
    ],
)
def test_every_timestamp_unit_is_loadable(time_type, options, read_as):
    value = "2026-10-01T06:00:00Z" if pa.types.is_string(time_type) else T0
    content = parquet_bytes(one_record(time_type, value), **options)
    num_rows, read_schema, extra, problem = inspection.inspect_file(content, EXPECTED)
    assert (num_rows, extra, problem) == (1, None, None)
    assert f"`batch_started_at` {read_as}" in read_schema


def test_nanoseconds_only_in_batch_times_a_nanosecond_identifier_is_refused():
    table = one_record(pa.timestamp("us", "UTC"), T0)
    table = table.set_column(0, "identifier", pa.array([T0], pa.timestamp("ns", "UTC")))
    assert inspection.inspect_file(parquet_bytes(table), EXPECTED)[3] == (
        "column identifier has unsupported type timestamp[ns, tz=UTC]"
    )


@pytest.mark.parametrize(
    ("nanos", "expected"),
    [
        (1_790_834_400_123_456_789, datetime(2026, 10, 1, 6, 0, 0, 123456)),  # truncated to us
        (1_790_834_400_000_000_999, datetime(2026, 10, 1, 6, 0, 0, 0)),
        (-1, datetime(1969, 12, 31, 23, 59, 59, 999999)),  # floored, not rounded to zero
        (None, None),
    ],
)
def test_nanoseconds_since_the_epoch_become_utc_instants(spark, nanos, expected):
    frame = spark.createDataFrame([(nanos,)], "n bigint")
    assert frame.select(value_rules.nanos_to_timestamp(F.col("n"))).first()[0] == expected


TEXT_FORMS = [
    ("2026-10-01 06:00:00 +02:00", datetime(2026, 10, 1, 4, 0)),  # the spec's example
    ("2026-10-01 06:00:00 UTC", datetime(2026, 10, 1, 6, 0)),  # the spec's example
    ("2026-10-01 06:00:00+02:00", datetime(2026, 10, 1, 4, 0)),
    ("2026-10-01T06:00:00 -05:30", datetime(2026, 10, 1, 11, 30)),
    ("2026-10-01T06:00:00 Z", datetime(2026, 10, 1, 6, 0)),
    ("2026-10-01 06:00 UTC", datetime(2026, 10, 1, 6, 0)),
    ("2026-10-01 06:00:00 utc", datetime(2026, 10, 1, 6, 0)),
    ("2026-10-01T06:00:00.5 GMT+01:00", datetime(2026, 10, 1, 5, 0, 0, 500000)),
    ("2026-10-01T06:00:00+0200", datetime(2026, 10, 1, 4, 0)),
    ("2026-10-01T06:00:00", datetime(2026, 10, 1, 6, 0)),  # no zone: UTC
    ("2026-10-01", datetime(2026, 10, 1, 0, 0)),
    ("next tuesday", None),
    ("2026-10-01 06:00:00 +2:00", None),  # a one-digit offset hour is not ISO-8601
]


def test_text_forms_of_the_spec_parse(spark):
    parser = value_rules.parse_utc_timestamp
    frame = spark.createDataFrame([(text,) for text, _ in TEXT_FORMS], "t string")
    got = dict(frame.select("t", parser(F.col("t"))).collect())
    assert got == dict(TEXT_FORMS)


def test_unparseable_text_time_loads_as_null_and_is_flagged(spark, tmp_path):
    text = pa.table(
        {
            "batch_started_at": ["2026-10-01 06:00:00 UTC", "soon", "", "  "],
            "batch_ended_at": ["2026-10-01 06:00:00 +02:00", None, "later", None],
        }
    )
    pq.write_table(text, tmp_path / "b.parquet")
    read_schema = "`batch_ended_at` string, `batch_started_at` string"
    frame = spark.read.schema(read_schema).parquet(str(tmp_path / "b.parquet"))
    normalised = record_reading.normalise(frame, record_reading.parse_read_schema(read_schema))
    columns = ["batch_started_at", "batch_ended_at", "timestamp_problem"]
    got = [tuple(row) for row in normalised.orderBy("row_index").select(*columns).collect()]
    assert got == [
        (datetime(2026, 10, 1, 6, 0), datetime(2026, 10, 1, 4, 0), None),
        (None, None, "batch_started_at is not a timestamp: 'soon'"),
        (None, None, "batch_ended_at is not a timestamp: 'later'"),  # blank text is null
        (None, None, None),
    ]


# --- 2. missing optional columns load as nulls ----------------------------------------------


def test_file_without_optional_columns_loads_and_names_them():
    table = one_record(pa.timestamp("us", "UTC"), T0).drop_columns(
        ["status_message", "batch_ended_at"]
    )
    assert inspection.inspect_file_columns(parquet_bytes(table), EXPECTED) == (
        1,
        "`batch_started_at` timestamp, `identifier` string, `operation` string, "
        "`record_payload` string, `status` string",
        None,
        "status_message, batch_ended_at",
        None,
    )


def test_file_with_only_the_required_columns_loads():
    table = one_record(pa.timestamp("us", "UTC"), T0).select(["identifier", "operation", "status"])
    assert inspection.inspect_file_columns(parquet_bytes(table), EXPECTED) == (
        1,
        "`identifier` string, `operation` string, `status` string",
        None,
        "record_payload, status_message, batch_started_at, batch_ended_at",
        None,
    )


# --- 5. deterministic everywhere -----------------------------------------------------------

RUN_SCHEMA = (
    "sync_id bigint, sync_run_id bigint, sync_run_started_at timestamp, behavior string, "
    "split_group string, sync_run_error string"
)


def record(run, identifier, payload, batch_file, status="succeeded"):
    """A record at row 0 of `batch_file`, batch number 1 (`.1` and `.01` name the same)."""
    return read_record(
        sync_run_id=run, batch_file=batch_file, batch_number=1, identifier=identifier,
        record_payload=payload, status=status,
    )


def changelog(spark, records, runs):
    records_df = spark.createDataFrame(records, record_reading.RECORD_SCHEMA)
    runs_df = spark.createDataFrame(
        [(10, run, started, "mirror", None, None) for run, started in runs], RUN_SCHEMA
    )
    new_rows = changelog_rules.fold_redeliveries(records_df, runs_df)
    return changelog_rules.build_changelog(new_rows, None, F.current_timestamp())


ONE = "records_updated.1.parquet"
ZERO_ONE = "records_updated.01.parquet"  # sorts first: same batch number, file name breaks it


def test_redelivery_in_files_1_and_01_keeps_the_01_file(spark):
    records = [record(1, "a", '{"v": 1}', ONE), record(1, "a", '{"v": 1}', ZERO_ONE)]
    result = changelog(spark, records, [(1, T0)])
    assert [tuple(r) for r in result.select("batch_file", "redelivery_count").collect()] == [
        (ZERO_ONE, 1)
    ]


def test_state_of_a_run_with_files_1_and_01_is_the_1_file(spark):
    records = [
        record(1, "a", '{"v": 1}', ONE),
        record(1, "a", '{"v": 2}', ZERO_ONE),
        record(2, "a", '{"v": 1}', "records_updated.0.parquet"),
    ]
    result = changelog(spark, records, [(1, T0), (2, datetime(2026, 10, 2, tzinfo=UTC))])
    later = result.filter("sync_run_id = 2").select("op_type", "payload_changed")
    assert [tuple(r) for r in later.collect()] == [("changed", False)]


def test_snapshot_latest_attempt_of_files_1_and_01_is_the_1_file(spark):
    records = [
        record(1, "a", '{"v": 2}', ONE, status="succeeded"),
        record(1, "a", '{"v": 1}', ZERO_ONE, status="rejected"),
    ]
    rows = changelog(spark, records, [(1, T0)])
    runs = rows.select("sync_id", "sync_run_id", "sync_run_started_at").distinct()
    state = snapshot_rules.build_snapshot(rows, runs).select("status", "fields")
    assert [tuple(r) for r in state.collect()] == [("succeeded", '{"v": 2}')]


FACT_ROWS = (
    "fact_table string, org_id bigint, id bigint, type string, name string, model_id bigint, "
    "business_object_id bigint, filter_segment_id bigint, cohort_id bigint, path string, "
    "file_modified_at timestamp, row_index bigint, row_kind string, problem string"
)


def test_two_rows_of_one_id_in_a_fact_file_the_last_row_wins(spark):
    def row(index, name):
        return (
            "destinations",
            1,
            8,
            "X::Connection",
            name,
            *[None] * 4,
            "m/1/d.parquet",
            T0,
            index,
            "row",
            None,
        )

    rows = spark.createDataFrame([row(1, "second"), row(0, "first")], FACT_ROWS)
    got = object_rules.from_fact_files(rows).select("id", "name").collect()
    assert [tuple(r) for r in got] == [(8, "second")]


MANIFEST_OF_OBJECTS = (
    "is_valid boolean, org_id bigint, sync_id bigint, sync_run_id bigint, "
    "sync_run_started_at timestamp, model_id bigint, source_object_id bigint, "
    "source_object_name string, destination_id bigint, destination_type string, "
    "destination_object_id bigint, destination_object_type string, "
    "destination_object_name string, listed_at timestamp"
)


def test_objects_stay_as_they_are_until_the_manifest_is_written_again(spark):
    facts = spark.createDataFrame(
        [("destinations", 1, 8, "X::Connection", "SF", *[None] * 4, "m/1/d.parquet", T0, 0,
          "row", None)],
        FACT_ROWS,
    )

    def manifest(listed_at):
        return spark.createDataFrame([(False, *[None] * 12, listed_at)], MANIFEST_OF_OBJECTS)

    listed = datetime(2026, 10, 2, 6, 0)  # naive: as collected
    stored = object_rules.current_objects(facts, manifest(listed), None).localCheckpoint()
    assert [(r["id"], r["name"], r["manifest_listed_at"]) for r in stored.collect()] == [
        (8, "SF", listed)
    ]
    assert object_rules.current_objects(facts, manifest(listed), stored) is stored
    later = listed + timedelta(minutes=1)
    again = object_rules.current_objects(facts, manifest(later), stored)
    assert [r["manifest_listed_at"] for r in again.collect()] == [later]


# --- 6. bad values never fail the build ----------------------------------------------------


@pytest.fixture
def ansi(spark):
    before = spark.conf.get("spark.sql.ansi.enabled")
    spark.conf.set("spark.sql.ansi.enabled", "true")
    yield
    spark.conf.set("spark.sql.ansi.enabled", before)


def test_fact_ids_that_are_not_integers_load_as_null_with_a_problem_under_ansi(spark, ansi):
    frame = spark.createDataFrame(
        [("8", "3"), ("n/a", "3"), ("9", "x"), (None, None)], "id string, model_id string"
    )
    ids, problem = object_rules.as_ids(frame, {"id", "model_id"})
    got = frame.select(F.col("id").alias("raw"), *ids[:2], problem.alias("problem")).collect()
    message = "a value that is not an integer, loaded as null, in: "
    assert [tuple(r) for r in got] == [
        ("8", 8, 3, None),
        ("n/a", None, 3, message + "id"),
        ("9", 9, None, message + "model_id"),
        (None, None, None, None),
    ]
