"""Metadata objects: the fact files metadata/<org_id>/{source_objects,destinations,
destination_objects}, and the objects runs point at.

Fact files are read again whenever their folder's listing changes (they are small and
refreshed in place every few hours); the manifest keeps their rows (`fact_rows`).
Each is inspected like a record batch (`inspection`): unreadable files and files lacking `id`,
`type` or `name` become `row_kind = 'file_problem'` rows (reported in the quarantine), valid
files are read natively. Id columns are converted with a safe cast: a value that is not an
integer (`n/a`) loads as null and the row says so in `problem`; the build never fails on it.
`row_index` (position in the file) breaks ties between rows of one id.

Objects (`int_sync_logs__objects`): one row per (object_kind, id). The latest fact file holding
the id wins (file modification time, then path), and within it the last row holding the id
(`row_index`). Ids that only run metadata names yet (the fact files lag behind runs) come from
the most recent valid run naming them (run start, then org, sync and run id), with what
metadata.json says of them, and record_source = 'run_metadata'. No two candidates tie: the
choice is the same on every build.
"""

from functools import reduce

from pyspark.sql import Column, DataFrame, SparkSession
from pyspark.sql import functions as F

from sync_logs.canonical.inspection import FACT_FILE, INSPECTION_SCHEMA, inspect_files
from sync_logs.canonical.local_rows import local_frame
from sync_logs.canonical.values import read_file_path, try_cast

# The fact file contract's columns: ids (read with a safe cast to bigint) and names.
ID_COLUMNS = ["id", *FACT_FILE.optional]
TEXT_COLUMNS = [name for name in FACT_FILE.required if name != "id"]
# One row of a fact file, or one fact file not read (`row_kind`), as `read_facts` gives them.
FACT_ROW_FIELDS = {
    "fact_table": "string",
    "org_id": "bigint",
    "id": "bigint",
    **{name: "string" for name in TEXT_COLUMNS},
    **{name: "bigint" for name in ID_COLUMNS[1:]},
    "path": "string",
    "file_modified_at": "timestamp",
    "row_index": "bigint",
    "row_kind": "string",
    "problem": "string",
}
FACT_ROW_COLUMNS = list(FACT_ROW_FIELDS)
FACT_ROWS_TYPE = (
    "array<struct<" + ",".join(f"{name}:{kind}" for name, kind in FACT_ROW_FIELDS.items()) + ">>"
)


def as_ids(frame: DataFrame, present: set[str]) -> tuple[list[Column], Column]:
    """The ID_COLUMNS of `frame` as bigint (safe casts), and each row's problem: the id
    columns holding a value that is not an integer (loaded as null), or null."""
    values, bad = [], []
    for name in ID_COLUMNS:
        if name not in present:
            values.append(F.lit(None).cast("bigint").alias(name))
            continue
        value = try_cast(F.col(name), "bigint")
        values.append(value.alias(name))
        bad.append(F.when(F.col(name).isNotNull() & value.isNull(), F.lit(name)))
    listed = F.array_join(F.array_compact(F.array(*bad)), ", ") if bad else F.lit("")
    problem = F.when(
        listed != "",
        F.concat(F.lit("a value that is not an integer, loaded as null, in: "), listed),
    )
    return values, problem


def read_facts(session: SparkSession, fact_files: DataFrame) -> DataFrame:
    """Rows of the valid `fact_files` (listed files of kind `fact`), a `file_problem` row per
    other (FACT_ROW_FIELDS)."""
    files = fact_files.select(
        "path",
        F.regexp_replace("file_name", r"\.parquet$", "").alias("fact_table"),
        "org_id",
        F.col("modification_time").alias("file_modified_at"),
    )
    # One row per file, brought to the driver so that the files are inspected once.
    inspected = inspect_files(session, fact_files.select("path", "length"), FACT_FILE)
    inspected = local_frame(session, inspected.collect(), INSPECTION_SCHEMA)
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
            read_file_path().alias("path"),
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


FACT_COLUMNS = {
    "type": "string",
    "name": "string",
    "model_id": "bigint",
    "business_object_id": "bigint",
    "filter_segment_id": "bigint",
    "cohort_id": "bigint",
    "org_id": "bigint",
}
# object_kind: (the run manifest's id column, {fact column: the manifest column filling it})
RUN_METADATA = {
    "source_objects": (
        "source_object_id",
        {"name": "source_object_name", "model_id": "model_id", "org_id": "org_id"},
    ),
    "destinations": ("destination_id", {"type": "destination_type", "org_id": "org_id"}),
    "destination_objects": (
        "destination_object_id",
        {"type": "destination_object_type", "name": "destination_object_name", "org_id": "org_id"},
    ),
}


def from_fact_files(facts: DataFrame) -> DataFrame:
    rows = facts.filter(
        (F.col("row_kind") == "row")
        & F.col("id").isNotNull()
        & F.col("fact_table").isin(*RUN_METADATA)
    )
    latest = F.max_by(F.struct(*FACT_COLUMNS), F.struct("file_modified_at", "path", "row_index"))
    return (
        rows.groupBy(F.col("fact_table").alias("object_kind"), "id")
        .agg(latest.alias("latest"))
        .select("object_kind", "id", "latest.*", F.lit("fact_file").alias("record_source"))
    )


def from_run_metadata(manifest: DataFrame) -> DataFrame:
    valid = manifest.filter(F.col("is_valid"))
    frames = []
    for kind, (id_column, filled) in RUN_METADATA.items():
        values = [
            (F.col(filled[name]) if name in filled else F.lit(None)).cast(kind_type).alias(name)
            for name, kind_type in FACT_COLUMNS.items()
        ]
        latest = F.max_by(
            F.struct(*values),
            F.struct("sync_run_started_at", "org_id", "sync_id", "sync_run_id"),
        )
        frames.append(
            valid.filter(F.col(id_column).isNotNull())
            .groupBy(F.col(id_column).alias("id"))
            .agg(latest.alias("latest"))
            .select(
                F.lit(kind).alias("object_kind"),
                "id",
                "latest.*",
                F.lit("run_metadata").alias("record_source"),
            )
        )
    return reduce(DataFrame.unionByName, frames)


def objects(facts: DataFrame, manifest: DataFrame) -> DataFrame:
    files = from_fact_files(facts)
    named_by_runs = from_run_metadata(manifest).join(
        files.select("object_kind", "id"), ["object_kind", "id"], "left_anti"
    )
    return files.unionByName(named_by_runs)


def current_objects(facts: DataFrame, manifest: DataFrame, previous: DataFrame | None) -> DataFrame:
    """`int_sync_logs__objects`: `previous` (the table) as it stands when the manifest has not
    been written since it was built, else the objects again, stamped with the manifest's
    latest write (`manifest_listed_at`). The two latest writes are read by one Spark job."""
    stamp = manifest.agg(F.max("listed_at").alias("manifest_listed_at"))
    if previous is not None:
        latest = stamp.select(F.unix_micros("manifest_listed_at")).crossJoin(
            previous.agg(F.unix_micros(F.max("manifest_listed_at")))
        )
        listed, stored = latest.first()
        if listed is not None and listed == stored:
            return previous
    return objects(facts, manifest).crossJoin(stamp)
