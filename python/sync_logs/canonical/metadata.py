"""metadata.json of a run folder: the documented keys and their accepted spellings, parsed into
the manifest's columns, with the run's validity and the reason when it is not loaded."""

from pyspark.sql import Column, DataFrame, SparkSession
from pyspark.sql import functions as F

from sync_logs.canonical.local_rows import local_frame
from sync_logs.canonical.values import parse_utc_timestamp, try_cast

# Canonical metadata.json field -> accepted alternative spellings (each also in camelCase).

FIELD_ALIASES = {
    "organization_id": [],
    "workspace_id": [],
    "sync_id": ["sync_configuration_id"],
    "sync_run_id": [],
    "sync_run_started_at": [],
    "sync_run_finished_at": ["completed_at"],
    "sync_run_status": [],
    "sync_run_error": [],
    "behavior": [],
    "primary_key": [],
    "source": [],
    "destination": [],
    "model_name": [],
    "model_id": [],
    "split_group": [],
    "record_payload_schema": [],
}
REQUIRED_FIELDS = ["organization_id", "sync_id", "sync_run_id", "sync_run_started_at"]
SOURCE_FIELDS = ["type", "id", "object_id", "object_name"]
DESTINATION_FIELDS = ["type", "id", "object_id", "object_type", "object_name"]
METADATA_TEXT_SCHEMA = "metadata_path string, metadata_text string"


def camel_case(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.capitalize() for part in rest)


def spellings(name: str, aliases: list[str]) -> list[str]:
    """Every accepted key for a field, in priority order: canonical first."""
    names = [name, *aliases]
    keys: list[str] = []
    for candidate in names:
        for key in (candidate, camel_case(candidate)):
            if key not in keys:
                keys.append(key)
    return keys


KNOWN_KEYS = sorted({key for name, al in FIELD_ALIASES.items() for key in spellings(name, al)})


def safe_json_object(text: Column) -> Column:
    """map<string,string> of a JSON object's top-level keys; null when not a JSON object.

    Nested values come back as their JSON text. Objects with a key written twice are treated
    as not parseable (Spark's maps refuse duplicate keys).
    """
    keys = F.json_object_keys(text)
    return F.when(
        keys.isNotNull() & (F.size(keys) == F.size(F.array_distinct(keys))),
        F.from_json(text, "map<string,string>"),
    )


def pick(fields: Column, name: str, aliases: list[str] | None = None) -> Column:
    return F.coalesce(*[fields.getItem(key) for key in spellings(name, aliases or [])])


def read_metadata_texts(session: SparkSession, paths: list[str]) -> DataFrame:
    """Whole text of each metadata.json, keyed by its path as listed."""
    if not paths:
        return local_frame(session, [], METADATA_TEXT_SCHEMA)
    texts = session.read.text(paths, wholetext=True)
    # _metadata.file_path is URI-encoded; the listing's path is not ('+' stays literal).
    decoded = F.expr("url_decode(regexp_replace(_metadata.file_path, '[+]', '%2B'))")
    return texts.select(decoded.alias("metadata_path"), F.col("value").alias("metadata_text"))


def parse_metadata(runs: DataFrame) -> DataFrame:
    """Normalised metadata columns, unknown keys, validity and quarantine reason."""
    fields = F.col("_fields")
    source = F.col("_source")
    destination = F.col("_destination")
    # Parsed once each, in their own projections, so the JSON is not parsed per field.
    parsed = (
        runs.withColumn("_fields", safe_json_object(F.col("metadata_text")))
        .withColumn("_source", safe_json_object(pick(fields, "source")))
        .withColumn("_destination", safe_json_object(pick(fields, "destination")))
    )

    def as_bigint(value: Column) -> Column:
        return try_cast(value, "bigint")

    columns = {
        "meta_organization_id": as_bigint(pick(fields, "organization_id")),
        "workspace_id": as_bigint(pick(fields, "workspace_id")),
        "meta_sync_id": as_bigint(pick(fields, "sync_id", ["sync_configuration_id"])),
        "meta_sync_run_id": as_bigint(pick(fields, "sync_run_id")),
        "sync_run_started_at": parse_utc_timestamp(pick(fields, "sync_run_started_at")),
        "sync_run_finished_at": parse_utc_timestamp(
            pick(fields, "sync_run_finished_at", ["completed_at"])
        ),
        "sync_run_status": pick(fields, "sync_run_status"),
        "sync_run_error": pick(fields, "sync_run_error"),
        "behavior": pick(fields, "behavior"),
        "primary_key": pick(fields, "primary_key"),
        "model_name": pick(fields, "model_name"),
        "model_id": as_bigint(pick(fields, "model_id")),
        "split_group": pick(fields, "split_group"),
        "record_payload_schema": pick(fields, "record_payload_schema"),
        "source_type": pick(source, "type"),
        "source_id": as_bigint(pick(source, "id")),
        "source_object_id": as_bigint(pick(source, "object_id")),
        "source_object_name": pick(source, "object_name"),
        "destination_type": pick(destination, "type"),
        "destination_id": as_bigint(pick(destination, "id")),
        "destination_object_id": as_bigint(pick(destination, "object_id")),
        "destination_object_type": pick(destination, "object_type"),
        "destination_object_name": pick(destination, "object_name"),
        "unknown_keys": F.array_sort(
            F.array_except(F.map_keys(fields), F.array(*[F.lit(k) for k in KNOWN_KEYS]))
        ),
    }
    for name, column in columns.items():
        parsed = parsed.withColumn(name, column)

    missing = F.array_compact(
        F.array(
            *[
                F.when(pick(fields, name, FIELD_ALIASES[name]).isNull(), F.lit(name))
                for name in REQUIRED_FIELDS
            ]
        )
    )
    unparseable = F.array_compact(
        F.array(
            F.when(F.col("meta_organization_id").isNull(), F.lit("organization_id")),
            F.when(F.col("meta_sync_id").isNull(), F.lit("sync_id")),
            F.when(F.col("meta_sync_run_id").isNull(), F.lit("sync_run_id")),
            F.when(F.col("sync_run_started_at").isNull(), F.lit("sync_run_started_at")),
        )
    )

    def contradiction(label: str, meta: str, folder: str) -> Column:
        return F.when(
            F.col(meta) != F.col(folder),
            F.concat(
                F.lit(f"metadata.json {label} "),
                F.col(meta).cast("string"),
                F.lit(" contradicts the folder's "),
                F.col(folder).cast("string"),
            ),
        )

    conflict = (
        F.col("folder_conflict")
        if "folder_conflict" in runs.columns
        else F.lit(None).cast("string")
    )
    reason = F.coalesce(
        conflict,
        F.when(F.col("metadata_path").isNull(), F.lit("metadata.json is missing")),
        F.when(
            F.col("metadata_text").isNull() | fields.isNull(),
            F.lit("metadata.json is not a JSON object"),
        ),
        F.when(
            F.size(missing) > 0,
            F.concat(F.lit("metadata.json lacks required field(s): "), F.array_join(missing, ", ")),
        ),
        F.when(
            F.size(unparseable) > 0,
            F.concat(
                F.lit("metadata.json has unparseable value(s) (integer / ISO-8601 expected): "),
                F.array_join(unparseable, ", "),
            ),
        ),
        contradiction("organization_id", "meta_organization_id", "org_id"),
        contradiction("sync_id", "meta_sync_id", "sync_id"),
        contradiction("sync_run_id", "meta_sync_run_id", "sync_run_id"),
    )
    return (
        parsed.withColumn("invalid_reason", reason)
        .withColumn("is_valid", F.col("invalid_reason").isNull())
        .drop("_fields", "_source", "_destination")
    )
