"""Per-file validation of record batches (int_sync_logs__record_files.inspect_file), on bytes."""

import io
from datetime import UTC, datetime
from types import SimpleNamespace

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from handmade_lake import RECORD_SCHEMA
from sync_logs.canonical import inspection

T0 = datetime(2026, 10, 1, 6, 0, tzinfo=UTC)
EXPECTED = {"expected_sync_id": 10, "expected_sync_run_id": 100}
FULL_SCHEMA = (
    "`batch_ended_at` timestamp, `batch_started_at` timestamp, `identifier` string, "
    "`operation` string, `record_payload` string, `status` string, `status_message` string"
)


def parquet_bytes(table: pa.Table, **options) -> bytes:
    sink = io.BytesIO()
    pq.write_table(table, sink, **options)
    return sink.getvalue()


def records(n: int = 3, schema: pa.Schema = RECORD_SCHEMA, **extra_columns) -> pa.Table:
    columns = {
        "identifier": [f"r{i}" for i in range(n)],
        "record_payload": ['{"a": 1}'] * n,
        "operation": ["upsert"] * n,
        "status": ["succeeded"] * n,
        "status_message": [None] * n,
        "batch_started_at": [T0] * n,
        "batch_ended_at": [T0] * n,
    }
    table = pa.Table.from_pydict(columns, schema=schema)
    for name, array in extra_columns.items():
        table = table.append_column(name, array)
    return table


def test_valid_file_reports_rows_and_read_schema():
    inspected = inspection.inspect_file(parquet_bytes(records(3)), EXPECTED)
    assert inspected == (3, FULL_SCHEMA, None, None)


def test_unknown_extra_columns_are_listed_and_not_read():
    table = records(2, destination_record_id=pa.array(["x", "y"]))
    assert inspection.inspect_file(parquet_bytes(table), EXPECTED) == (
        2,
        FULL_SCHEMA,
        "destination_record_id",
        None,
    )


def test_matching_optional_id_columns_are_read():
    table = records(
        2,
        sync_configuration_id=pa.array([10, 10], pa.int64()),
        sync_run_id=pa.array([100, None], pa.int64()),
    )
    num_rows, read_schema, extra, problem = inspection.inspect_file(parquet_bytes(table), EXPECTED)
    assert (num_rows, extra, problem) == (2, None, None)
    assert "`sync_configuration_id` bigint" in read_schema
    assert "`sync_run_id` bigint" in read_schema


def test_file_run_id_contradicting_the_folder_is_rejected():
    table = records(2, sync_run_id=pa.array([100, 99], pa.int64()))
    assert inspection.inspect_file(parquet_bytes(table), EXPECTED) == (
        None,
        None,
        None,
        "column sync_run_id (99..100) contradicts the folder's 100",
    )


def test_file_sync_id_contradicting_the_folder_is_rejected():
    table = records(1, sync_configuration_id=pa.array([11], pa.int64()))
    assert inspection.inspect_file(parquet_bytes(table), EXPECTED)[3] == (
        "column sync_configuration_id (11..11) contradicts the folder's 10"
    )


@pytest.mark.parametrize("missing", ["identifier", "operation", "status"])
def test_missing_required_column_is_rejected(missing):
    table = records(2).drop_columns([missing])
    assert inspection.inspect_file(parquet_bytes(table), EXPECTED) == (
        None,
        None,
        None,
        f"missing required column(s): {missing}",
    )


def test_truncated_file_is_rejected():
    content = parquet_bytes(records(50))
    result = inspection.inspect_file(content[: len(content) // 2], EXPECTED)
    assert result[:3] == (None, None, None)
    assert result[3].startswith("corrupt or truncated parquet file (")


def test_not_a_parquet_file_is_rejected():
    result = inspection.inspect_file(b"this is not parquet at all", EXPECTED)
    assert result[3].startswith("corrupt or truncated parquet file (")


def test_corrupt_data_page_is_rejected():
    content = bytearray(parquet_bytes(records(200), compression="snappy"))
    # Overwrite bytes in the middle of the data pages; the footer stays intact.
    for offset in range(40, 400):
        content[offset] = 0xFF
    result = inspection.inspect_file(bytes(content), EXPECTED)
    assert result[:3] == (None, None, None)
    assert result[3].startswith("corrupt")


def test_nanosecond_timestamps_are_read_as_their_int64():
    schema = pa.schema(
        [
            field
            if not field.name.startswith("batch_")
            else pa.field(field.name, pa.timestamp("ns", "UTC"))
            for field in RECORD_SCHEMA
        ]
    )
    table = records(1, schema=schema)
    assert inspection.inspect_file(parquet_bytes(table), EXPECTED) == (
        1,
        FULL_SCHEMA.replace("timestamp", "bigint"),
        None,
        None,
    )


def test_zoneless_and_text_timestamps_are_read_with_their_type():
    schema = pa.schema(
        [
            pa.field("batch_started_at", pa.timestamp("us"))
            if field.name == "batch_started_at"
            else pa.field("batch_ended_at", pa.string())
            if field.name == "batch_ended_at"
            else field
            for field in RECORD_SCHEMA
        ]
    )
    columns = records(1).to_pydict()
    columns["batch_started_at"] = [datetime(2026, 10, 1, 6, 0)]
    columns["batch_ended_at"] = ["2026-10-01T08:00:00+02:00"]
    table = pa.Table.from_pydict(columns, schema=schema)
    read_schema = inspection.inspect_file(parquet_bytes(table), EXPECTED)[1]
    assert "`batch_started_at` timestamp_ntz" in read_schema
    assert "`batch_ended_at` string" in read_schema


def test_all_null_column_is_read_as_absent():
    table = records(2).append_column("sync_run_id", pa.nulls(2))
    assert inspection.inspect_file(parquet_bytes(table), EXPECTED) == (2, FULL_SCHEMA, None, None)


@pytest.mark.parametrize(
    ("shuffle_partitions", "total_bytes", "tasks"),
    [("4", 90_000_000, 4), ("4", 1_000_000_000, 30), ("2", 0, 2), ("auto", 10**9, None)],
)
def test_files_are_inspected_in_tasks_of_about_32_mb_on_every_core(
    shuffle_partitions, total_bytes, tasks
):
    session = SimpleNamespace(conf=SimpleNamespace(get=lambda name: shuffle_partitions))
    assert inspection.inspection_tasks(session, total_bytes) == tasks
