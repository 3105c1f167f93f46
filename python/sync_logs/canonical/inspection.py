"""File inspection: one parquet inspector for record batches and fact files.

Spark has no built-in that returns one parquet file's own schema, and its merged read cannot
tell a column a file lacks from a column of nulls, nor survive a corrupt file without dropping
it silently. So each file's bytes (`binaryFile`) go through a small `mapInArrow` function that
opens the footer with pyarrow, checks the required columns and their types, decodes the known
columns of every row group (a corrupt page fails here, not later in Spark's reader), and checks
a record batch's optional `sync_configuration_id` / `sync_run_id` columns against its folder.
Valid files are then read natively by Spark, grouped by the `read_schema` found here.

The manifest keeps the inspection of a valid run's record batches (`record_files`) until its
loadable files change: a build inspects only the files of the runs it loads.
"""

import math
from collections.abc import Iterator
from dataclasses import dataclass, field

import pyarrow as pa
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from sync_logs.canonical.local_rows import local_frame
from sync_logs.canonical.parallelism import shuffle_partitions

# Bytes of file content per inspection task. Spark packs files into read tasks by their size plus
# an open cost of 4 MB each: the 1,923 record batches of a 1M-record lake (90 MB) became 61 tasks,
# and each task's round trip to a Python worker cost more than its inspection (3 s against 1.2 s
# in 4 tasks, warm; settings.md, session 21).
INSPECTION_TASK_BYTES = 32 * 1024 * 1024
# Spark refuses to read parquet TIMESTAMP(NANOS) as a timestamp, but reads its int64 when asked
# for a bigint (no session setting needed); the record reader turns those nanoseconds since the
# epoch into a UTC instant (truncated to microseconds, Spark's precision).
NANOS_READ_TYPE = "bigint"
INSPECTION_SCHEMA = (
    "path string, num_rows bigint, read_schema string, extra_columns string, "
    "missing_columns string, problem string"
)


@dataclass(frozen=True)
class FileContract:
    """The columns a kind of file must, may and can hold, and the types each is read with."""

    required: tuple[str, ...]
    optional: tuple[str, ...]
    # Columns read as times: a parquet time, a date or ISO-8601 text.
    timestamps: frozenset[str] = frozenset()
    # Columns checked against the folder: column -> the key of its expected value.
    folder_ids: dict[str, str] = field(default_factory=dict)
    # The Spark types a column may be read with; None: any type `spark_type` maps.
    read_types: frozenset[str] | None = None

    @property
    def known(self) -> list[str]:
        return [*self.required, *self.optional, *self.folder_ids]


# A record batch lacking a required column is not loaded; any other contract column it lacks
# loads as null (the spec: readers must not fail when an optional column is absent).
RECORD_BATCH = FileContract(
    required=("identifier", "operation", "status"),
    optional=("record_payload", "status_message", "batch_started_at", "batch_ended_at"),
    timestamps=frozenset({"batch_started_at", "batch_ended_at"}),
    folder_ids={"sync_configuration_id": "expected_sync_id", "sync_run_id": "expected_sync_run_id"},
)
# Fact files hold ids (read as bigint with a safe cast) and names.
FACT_FILE = FileContract(
    required=("id", "type", "name"),
    optional=("model_id", "business_object_id", "filter_segment_id", "cohort_id"),
    read_types=frozenset({"string", "tinyint", "smallint", "int", "bigint", "double"}),
)


def spark_type(field: pa.Field, physical: str) -> str | None:
    """The Spark type that reads this parquet column natively, or None when Spark can't."""
    t = field.type
    if pa.types.is_string(t) or pa.types.is_large_string(t):
        return "string"
    if pa.types.is_binary(t) or pa.types.is_large_binary(t):
        return "binary"
    if pa.types.is_timestamp(t):
        if physical == "INT96":
            return "timestamp"
        if t.unit == "ns":
            return None  # Spark refuses TIMESTAMP(NANOS)
        return "timestamp" if t.tz is not None else "timestamp_ntz"
    if pa.types.is_date32(t):
        return "date"
    if pa.types.is_boolean(t):
        return "boolean"
    integer_types = {
        pa.int8(): "tinyint",
        pa.int16(): "smallint",
        pa.int32(): "int",
        pa.int64(): "bigint",
        pa.uint8(): "smallint",
        pa.uint16(): "int",
        pa.uint32(): "bigint",
    }
    if t in integer_types:
        return integer_types[t]
    if pa.types.is_float32(t):
        return "float"
    if pa.types.is_float64(t):
        return "double"
    if pa.types.is_decimal(t):
        return f"decimal({t.precision},{t.scale})"
    return None


def timestamp_read_type(field: pa.Field, physical: str, logical: str) -> str | None:
    """The Spark type a time column is read with (see `records.normalise`)."""
    if pa.types.is_timestamp(field.type) and physical == "INT64" and "nanoseconds" in logical:
        return NANOS_READ_TYPE
    type_name = spark_type(field, physical)
    if type_name in ("timestamp", "timestamp_ntz", "string", "date"):
        return type_name
    return None


def inspect_parquet(
    content: bytes, contract: FileContract, expected: dict[str, int | None] | None = None
) -> tuple:
    """(num_rows, read_schema, extra_columns, missing_columns, problem) of one parquet file's
    bytes under `contract`: `missing_columns` names the optional columns the file lacks (loaded
    as null); `expected` holds the folder's ids for `contract.folder_ids`."""
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    expected = expected or {}
    try:
        parquet = pq.ParquetFile(pa.BufferReader(content))
        schema = parquet.schema_arrow
        columns = [parquet.schema.column(i) for i in range(len(parquet.schema))]
        physical = {column.name: column.physical_type for column in columns}
        logical = {column.name: str(column.logical_type) for column in columns}
    except Exception as error:  # noqa: BLE001 - any failure to open means corrupt/truncated
        return None, None, None, None, f"corrupt or truncated parquet file ({error})"
    names = schema.names
    missing = [name for name in contract.required if name not in names]
    if missing:
        return None, None, None, None, "missing required column(s): " + ", ".join(missing)
    absent = ", ".join(name for name in contract.optional if name not in names) or None
    extra = sorted(name for name in names if name not in contract.known)
    read_types: dict[str, str] = {}
    for name in contract.known:
        if name not in names:
            continue
        column = schema.field(name)
        if pa.types.is_null(column.type):
            continue  # a column of nulls only: read as absent
        if name in contract.timestamps:
            type_name = timestamp_read_type(column, physical.get(name, ""), logical.get(name, ""))
        else:
            type_name = spark_type(column, physical.get(name, ""))
        if contract.read_types is not None and type_name not in contract.read_types:
            type_name = None
        if type_name is None:
            return None, None, None, None, f"column {name} has unsupported type {column.type}"
        read_types[name] = type_name
    present = list(read_types)
    try:
        for index in range(parquet.num_row_groups):
            group = parquet.read_row_group(index, columns=present)
            for name, expected_name in contract.folder_ids.items():
                want = expected.get(expected_name)
                if name not in read_types or want is None:
                    continue
                values = group.column(name)
                try:
                    as_int = pc.cast(values, pa.int64())
                except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
                    return None, None, None, None, f"column {name} holds non-integer values"
                differs = pc.sum(pc.cast(pc.not_equal(as_int, want), pa.int64())).as_py() or 0
                if differs:
                    found = pc.min_max(as_int).as_py()
                    return (
                        None,
                        None,
                        None,
                        None,
                        f"column {name} ({found['min']}..{found['max']}) contradicts the "
                        f"folder's {want}",
                    )
    except Exception as error:  # noqa: BLE001 - a page that does not decode
        return None, None, None, None, f"corrupt parquet data ({error})"
    read_schema = ", ".join(f"`{name}` {read_types[name]}" for name in sorted(read_types))
    return parquet.metadata.num_rows, read_schema, ", ".join(extra) or None, absent, None


def inspect_file_columns(content: bytes, expected: dict[str, int | None]) -> tuple:
    """`inspect_parquet` of a record batch."""
    return inspect_parquet(content, RECORD_BATCH, expected)


def inspect_file(content: bytes, expected: dict[str, int | None]) -> tuple:
    """(num_rows, read_schema, extra_columns, problem) of a record batch's bytes."""
    num_rows, read_schema, extra, _, problem = inspect_file_columns(content, expected)
    return num_rows, read_schema, extra, problem


def file_inspector(contract: FileContract):
    """mapInArrow body: one output row per input file (path, content and the expected ids)."""
    schema = pa.schema(
        [
            ("path", pa.string()),
            ("num_rows", pa.int64()),
            ("read_schema", pa.string()),
            ("extra_columns", pa.string()),
            ("missing_columns", pa.string()),
            ("problem", pa.string()),
        ]
    )

    def inspect_batches(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        for batch in batches:
            columns = batch.to_pydict()
            rows = []
            for i, content in enumerate(columns["content"]):
                expected = {
                    name: columns[name][i]
                    for name in contract.folder_ids.values()
                    if name in columns
                }
                rows.append(inspect_parquet(content, contract, expected))
            yield pa.RecordBatch.from_pydict(
                {
                    "path": columns["path"],
                    "num_rows": [row[0] for row in rows],
                    "read_schema": [row[1] for row in rows],
                    "extra_columns": [row[2] for row in rows],
                    "missing_columns": [row[3] for row in rows],
                    "problem": [row[4] for row in rows],
                },
                schema=schema,
            )

    return inspect_batches


def inspection_tasks(session: SparkSession, total_bytes: int) -> int | None:
    """Tasks to inspect files of `total_bytes` in: about `INSPECTION_TASK_BYTES` each, and at
    least spark.sql.shuffle.partitions (the cores to keep busy); None where that setting is not
    a number (`auto` on Databricks): Spark's own split."""
    partitions = shuffle_partitions(session)
    if partitions is None:
        return None
    return max(partitions, math.ceil(total_bytes / INSPECTION_TASK_BYTES))


def inspect_files(session: SparkSession, files: DataFrame, contract: FileContract) -> DataFrame:
    """Inspection rows for `files` (path, its `length`, and the expected ids of
    `contract.folder_ids`)."""
    listed = files.select("path", "length").collect()
    if not listed:
        return local_frame(session, [], INSPECTION_SCHEMA)
    contents = (
        session.read.format("binaryFile")
        .load([row["path"] for row in listed])
        .select("path", "content")
    )
    tasks = inspection_tasks(session, sum(row["length"] or 0 for row in listed))
    if tasks is not None:
        contents = contents.coalesce(tasks)
    return contents.join(F.broadcast(files.drop("length")), "path").mapInArrow(
        file_inspector(contract), INSPECTION_SCHEMA
    )
