"""The normalised raw records of the runs this build loads (rebuilt every build).

Valid files (see `int_sync_logs__record_files`) are read natively by Spark, one read per
distinct `read_schema`, and unioned by name: columns a file lacks are null, unknown extra
columns are not read. Timestamps become UTC instants whatever their parquet type (timestamp,
timestamp without zone = UTC wall time, ISO-8601 text). Each record keeps its file and row
index, so every later ordering is deterministic. `record_payload` stays text; a payload that is
null, empty or not a JSON object is flagged in `payload_problem` (the record is still loaded).
"""

from pyspark.sql import Column, DataFrame, SparkSession
from pyspark.sql import functions as F

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
    "manifest_version",
]
RECORD_SCHEMA = (
    "org_id bigint, sync_id bigint, sync_run_id bigint, batch_file string, batch_type string, "
    "batch_number int, row_index bigint, identifier string, record_payload string, "
    "operation string, status string, status_message string, batch_started_at timestamp, "
    "batch_ended_at timestamp, payload_problem string, manifest_version bigint"
)


def _try_cast(value: Column, type_name: str) -> Column:
    """Null when the value does not convert, whatever spark.sql.ansi.enabled says."""
    if hasattr(Column, "try_cast"):  # Spark 4
        return value.try_cast(type_name)
    return value.cast(type_name)  # Spark 3.5 runtimes: ANSI off by default


def parse_utc_timestamp(text: Column) -> Column:
    """ISO-8601 text -> timestamp (UTC instant). No zone suffix means UTC; offsets convert."""
    t = F.upper(F.trim(text))
    t = F.regexp_replace(t, r"^(\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2})(?=$|[Z+-])", "$1:00")
    has_zone = t.rlike(r"[T ][0-9:.]+(Z|[+-][0-9]{2}(:?[0-9]{2})?)$")
    date_only = t.rlike(r"^\d{4}-\d{2}-\d{2}$")
    with_zone = (
        F.when(date_only, F.concat(t, F.lit("T00:00:00Z")))
        .when(has_zone, t)
        .otherwise(F.concat(t, F.lit("Z")))
    )
    return _try_cast(with_zone, "timestamp")


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
    for name in TIMESTAMP_COLUMNS:
        type_name = types.get(name)
        if type_name is None:
            value = F.lit(None).cast("timestamp")
        elif type_name == "timestamp":
            value = F.col(name)
        else:  # timestamp_ntz (UTC wall time), date, or ISO-8601 text
            value = parse_utc_timestamp(F.col(name).cast("string"))
        columns.append(value.alias(name))
    decoded_path = F.expr("url_decode(regexp_replace(_metadata.file_path, '[+]', '%2B'))")
    columns += [decoded_path.alias("path"), F.col("_metadata.row_index").alias("row_index")]
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


def read_records(session: SparkSession, files: DataFrame) -> DataFrame:
    """Records of the loadable `files` (one row per file: path, read_schema, ids, batch info)."""
    groups: dict[str, list[str]] = {}
    for row in files.select("read_schema", "path").collect():
        groups.setdefault(row["read_schema"], []).append(row["path"])
    if not groups:
        return session.createDataFrame([], RECORD_SCHEMA)
    frames = [
        normalise(session.read.schema(schema).parquet(*paths), parse_read_schema(schema))
        for schema, paths in sorted(groups.items())
    ]
    records = frames[0]
    for frame in frames[1:]:
        records = records.unionByName(frame)
    info = files.select(
        "path",
        "org_id",
        "sync_id",
        "sync_run_id",
        F.col("file_name").alias("batch_file"),
        "batch_type",
        "batch_number",
        "manifest_version",
    )
    return (
        records.join(F.broadcast(info), "path")
        .withColumn("payload_problem", payload_problem(F.col("record_payload")))
        .select(*RECORD_COLUMNS)
    )


def loadable_files(record_files: DataFrame, runs: DataFrame) -> DataFrame:
    return record_files.filter(F.col("is_loaded")).join(
        runs.select("sync_id", "sync_run_id", "manifest_version"),
        ["sync_id", "sync_run_id", "manifest_version"],
        "left_semi",
    )


def model(dbt, session):
    files = loadable_files(
        dbt.ref("int_sync_logs__record_files"), dbt.ref("int_sync_logs__runs_to_load")
    )
    return read_records(session, files)
