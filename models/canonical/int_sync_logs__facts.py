"""Rows of the fact files metadata/<org_id>/{source_objects,destinations,destination_objects}.

Rebuilt every build (the fact files are small and refreshed in place every few hours). Each
file is inspected like a record batch (see `int_sync_logs__record_files` for why this needs a
small `mapInArrow` function): unreadable files and files lacking `id`, `type` or `name` become
`row_kind = 'file_problem'` rows (reported in the quarantine), valid files are read natively.
Id columns are converted with a safe cast: a value that is not an integer (`n/a`) loads as null
and the row says so in `problem` (reported per file in the quarantine); the build never fails
on it, ANSI mode or not. `row_index` (position in the file) breaks ties between rows of one id.
"""

from collections.abc import Iterator

import pyarrow as pa
from pyspark.sql import Column, DataFrame, SparkSession
from pyspark.sql import functions as F

REQUIRED_COLUMNS = ["id", "type", "name"]
ID_COLUMNS = ["id", "model_id", "business_object_id", "filter_segment_id", "cohort_id"]
TEXT_COLUMNS = ["type", "name"]
KNOWN_COLUMNS = ID_COLUMNS + TEXT_COLUMNS
INSPECTION_SCHEMA = "path string, num_rows bigint, read_schema string, problem string"
FACT_SCHEMA = (
    "fact_table string, org_id bigint, id bigint, type string, name string, model_id bigint, "
    "business_object_id bigint, filter_segment_id bigint, cohort_id bigint, path string, "
    "file_modified_at timestamp, row_index bigint, row_kind string, problem string"
)


def _try_cast(value: Column, type_name: str) -> Column:
    """Null when the value does not convert, whatever spark.sql.ansi.enabled says."""
    if hasattr(Column, "try_cast"):  # Spark 4
        return value.try_cast(type_name)
    return value.cast(type_name)  # Spark 3.5 runtimes: ANSI off by default


def as_ids(frame: DataFrame, present: set[str]) -> tuple[list[Column], Column]:
    """The ID_COLUMNS of `frame` as bigint (safe casts), and each row's problem: the id
    columns holding a value that is not an integer (loaded as null), or null."""
    values, bad = [], []
    for name in ID_COLUMNS:
        if name not in present:
            values.append(F.lit(None).cast("bigint").alias(name))
            continue
        value = _try_cast(F.col(name), "bigint")
        values.append(value.alias(name))
        bad.append(F.when(F.col(name).isNotNull() & value.isNull(), F.lit(name)))
    listed = F.array_join(F.array_compact(F.array(*bad)), ", ") if bad else F.lit("")
    problem = F.when(
        listed != "",
        F.concat(F.lit("a value that is not an integer, loaded as null, in: "), listed),
    )
    return values, problem


def spark_type(field: pa.Field) -> str | None:
    t = field.type
    if pa.types.is_string(t) or pa.types.is_large_string(t):
        return "string"
    mapping = {
        pa.int8(): "tinyint",
        pa.int16(): "smallint",
        pa.int32(): "int",
        pa.int64(): "bigint",
    }
    if t in mapping:
        return mapping[t]
    if pa.types.is_float64(t):
        return "double"
    return None


def inspect_file(content: bytes) -> tuple:
    import pyarrow.parquet as pq

    try:
        parquet = pq.ParquetFile(pa.BufferReader(content))
        schema = parquet.schema_arrow
    except Exception as error:  # noqa: BLE001 - any failure to open means corrupt/truncated
        return None, None, f"corrupt or truncated parquet file ({error})"
    missing = [name for name in REQUIRED_COLUMNS if name not in schema.names]
    if missing:
        return None, None, "missing required column(s): " + ", ".join(missing)
    types = {}
    for name in KNOWN_COLUMNS:
        if name in schema.names and not pa.types.is_null(schema.field(name).type):
            type_name = spark_type(schema.field(name))
            if type_name is None:
                return None, None, f"column {name} has unsupported type {schema.field(name).type}"
            types[name] = type_name
    try:
        for index in range(parquet.num_row_groups):
            parquet.read_row_group(index, columns=list(types))
    except Exception as error:  # noqa: BLE001 - a page that does not decode
        return None, None, f"corrupt parquet data ({error})"
    read_schema = ", ".join(f"`{name}` {types[name]}" for name in sorted(types))
    return parquet.metadata.num_rows, read_schema, None


def inspect_batches(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    schema = pa.schema(
        [
            ("path", pa.string()),
            ("num_rows", pa.int64()),
            ("read_schema", pa.string()),
            ("problem", pa.string()),
        ]
    )
    for batch in batches:
        columns = batch.to_pydict()
        rows = [inspect_file(content) for content in columns["content"]]
        yield pa.RecordBatch.from_pydict(
            {
                "path": columns["path"],
                "num_rows": [row[0] for row in rows],
                "read_schema": [row[1] for row in rows],
                "problem": [row[2] for row in rows],
            },
            schema=schema,
        )


def read_facts(session: SparkSession, fact_files: DataFrame) -> DataFrame:
    files = fact_files.select(
        "path",
        F.regexp_replace("file_name", r"\.parquet$", "").alias("fact_table"),
        "org_id",
        F.col("modification_time").alias("file_modified_at"),
    )
    paths = [row["path"] for row in files.select("path").collect()]
    if not paths:
        return session.createDataFrame([], FACT_SCHEMA)
    inspected = (
        session.read.format("binaryFile")
        .load(paths)
        .select("path", "content")
        .mapInArrow(inspect_batches, INSPECTION_SCHEMA)
    )
    described = files.join(inspected, "path", "left")
    problems = described.filter(F.col("problem").isNotNull() | F.col("num_rows").isNull()).select(
        "fact_table",
        "org_id",
        *[F.lit(None).cast("bigint").alias(c) for c in ["id"]],
        *[F.lit(None).cast("string").alias(c) for c in TEXT_COLUMNS],
        *[F.lit(None).cast("bigint").alias(c) for c in ID_COLUMNS[1:]],
        "path",
        "file_modified_at",
        F.lit(None).cast("bigint").alias("row_index"),
        F.lit("file_problem").alias("row_kind"),
        F.coalesce(F.col("problem"), F.lit("file not read")).alias("problem"),
    )
    groups: dict[str, list[str]] = {}
    for row in (
        described.filter(F.col("problem").isNull() & F.col("num_rows").isNotNull())
        .select("read_schema", "path")
        .collect()
    ):
        groups.setdefault(row["read_schema"], []).append(row["path"])
    result = problems
    decoded = F.expr("url_decode(regexp_replace(_metadata.file_path, '[+]', '%2B'))")
    for read_schema, group_paths in sorted(groups.items()):
        frame = session.read.schema(read_schema).parquet(*group_paths)
        present = set(frame.columns)
        ids, problem = as_ids(frame, present)
        rows = frame.select(
            *ids,
            *[
                (F.col(c) if c in present else F.lit(None)).cast("string").alias(c)
                for c in TEXT_COLUMNS
            ],
            decoded.alias("path"),
            F.col("_metadata.row_index").alias("row_index"),
            problem.alias("problem"),
        ).join(F.broadcast(files), "path")
        result = result.unionByName(
            rows.select(
                "fact_table",
                "org_id",
                "id",
                *TEXT_COLUMNS,
                *ID_COLUMNS[1:],
                "path",
                "file_modified_at",
                "row_index",
                F.lit("row").alias("row_kind"),
                "problem",
            )
        )
    return result


def model(dbt, session):
    lake_files = dbt.ref("int_sync_logs__lake_files")
    fact_files = lake_files.filter((F.col("file_kind") == "fact") & F.col("problem").isNull())
    return read_facts(session, fact_files)
