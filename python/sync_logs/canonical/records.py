"""Record reading: the records of the runs a build loads, straight from their valid files.

One native read per distinct `read_schema` (see `inspection`), unioned by name: columns a file
lacks are null, unknown extra columns are not read. Timestamps become UTC instants whatever
their parquet type (timestamp, timestamp without zone = UTC wall time, ISO-8601 text). Each
record keeps its file and row index, so every later ordering is deterministic. A payload that
is null, empty or not a JSON object is flagged in `payload_problem` (the record is still
loaded, with `fields` null).
"""

from pyspark.sql import Column, DataFrame, Row, SparkSession
from pyspark.sql import functions as F

from sync_logs.canonical.inspection import NANOS_READ_TYPE
from sync_logs.canonical.local_rows import local_frame
from sync_logs.canonical.values import nanos_to_timestamp, parse_utc_timestamp, read_file_path

TEXT_COLUMNS = ["identifier", "record_payload", "operation", "status", "status_message"]
TIMESTAMP_COLUMNS = ["batch_started_at", "batch_ended_at"]
RECORD_COLUMNS = [
    "org_id",
    "sync_id",
    "sync_run_id",
    "batch_file",
    "batch_type",
    "batch_number",
    "row_index",
    "identifier",
    "record_payload",
    "operation",
    "status",
    "status_message",
    "batch_started_at",
    "batch_ended_at",
    "payload_problem",
    "payload_truncated",
    "timestamp_problem",
    "manifest_version",
]
RECORD_SCHEMA = (
    "org_id bigint, sync_id bigint, sync_run_id bigint, batch_file string, batch_type string, "
    "batch_number int, row_index bigint, identifier string, record_payload string, "
    "operation string, status string, status_message string, batch_started_at timestamp, "
    "batch_ended_at timestamp, payload_problem string, payload_truncated boolean, "
    "timestamp_problem string, manifest_version bigint"
)


def parse_read_schema(read_schema: str) -> dict[str, str]:
    """'`a` string, `b` timestamp' -> {'a': 'string', 'b': 'timestamp'}."""
    types = {}
    for part in read_schema.split(", "):
        name, _, type_name = part.partition(" ")
        types[name.strip("`")] = type_name
    return types


def normalise(frame: DataFrame, types: dict[str, str]) -> DataFrame:
    """Standard column types for one schema group."""
    columns = []
    for name in TEXT_COLUMNS:
        if name not in types:
            columns.append(F.lit(None).cast("string").alias(name))
        else:
            columns.append(F.col(name).cast("string").alias(name))
    problems = []
    for name in TIMESTAMP_COLUMNS:
        type_name = types.get(name)
        if type_name is None:
            value = F.lit(None).cast("timestamp")
        elif type_name == "timestamp":
            value = F.col(name)
        elif type_name == NANOS_READ_TYPE:
            value = nanos_to_timestamp(F.col(name))
        else:  # timestamp_ntz (UTC wall time), date, or ISO-8601 text
            value = parse_utc_timestamp(F.col(name).cast("string"))
            problems.append(
                F.when(
                    (F.trim(F.col(name).cast("string")) != "") & value.isNull(),
                    F.concat(
                        F.lit(f"{name} is not a timestamp: '"),
                        F.substring(F.col(name).cast("string"), 1, 100),
                        F.lit("'"),
                    ),
                )
            )
        columns.append(value.alias(name))
    problem = F.concat_ws("; ", *problems) if problems else F.lit("")
    columns.append(F.when(problem != "", problem).cast("string").alias("timestamp_problem"))
    columns += [read_file_path().alias("path"), F.col("_metadata.row_index").alias("row_index")]
    return frame.select(*columns)


def payload_problem(payload: Column) -> Column:
    trimmed = F.trim(payload)
    is_object = (
        trimmed.startswith("{") & trimmed.endswith("}") & F.json_object_keys(payload).isNotNull()
    )
    return (
        F.when(payload.isNull(), F.lit("record_payload is null"))
        .when(trimmed == "", F.lit("record_payload is empty"))
        .when(~is_object, F.lit("record_payload is not a JSON object"))
    )


FILE_SCHEMA = (
    "path string, read_schema string, org_id bigint, sync_id bigint, sync_run_id bigint, "
    "batch_file string, batch_type string, batch_number int, manifest_version bigint"
)


def file_rows(files: DataFrame) -> list[Row]:
    """The loadable `files` (one row per file: path, read_schema, ids, batch info) as rows of
    `FILE_SCHEMA`'s columns, collected once: the reads are grouped by them and the records take
    their ids from a local frame, so that the files' plan (views over the run manifest and the
    build plan) runs once."""
    columns = parse_read_schema(FILE_SCHEMA)
    return files.withColumnRenamed("file_name", "batch_file").select(*columns).collect()


def read_records(session: SparkSession, files: list[Row]) -> DataFrame:
    """Records of the loadable `files` (`file_rows`)."""
    groups: dict[str, list[str]] = {}
    for file in files:
        groups.setdefault(file["read_schema"], []).append(file["path"])
    if not groups:
        return local_frame(session, [], RECORD_SCHEMA)
    frames = [
        normalise(session.read.schema(schema).parquet(*paths), parse_read_schema(schema))
        for schema, paths in sorted(groups.items())
    ]
    records = frames[0]
    for frame in frames[1:]:
        records = records.unionByName(frame)
    info = local_frame(session, files, FILE_SCHEMA).drop("read_schema")
    return (
        records.join(F.broadcast(info), "path")
        .withColumn("payload_problem", payload_problem(F.col("record_payload")))
        .withColumn("payload_truncated", F.lit(False))
        .select(*RECORD_COLUMNS)
    )


def loadable_files(record_files: DataFrame, runs: DataFrame) -> DataFrame:
    return record_files.filter(F.col("is_loaded")).join(
        runs.select("sync_id", "sync_run_id", "manifest_version"),
        ["sync_id", "sync_run_id", "manifest_version"],
        "left_semi",
    )
