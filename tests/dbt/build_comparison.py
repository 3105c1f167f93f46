"""Two builds of the canonical tables compared row for row: a build that healed, upgraded or
reloaded against a clean build of the same lake in another schema."""

COMPARED_TABLES = [
    "sync_changelog",
    "sync_snapshot",
    "sync_runs",
    "sync_log",
    "int_sync_logs__snapshot",
    "int_sync_logs__record_files",
    "int_sync_logs__run_manifest",
    "sync_logs_quarantine",
    "source_objects",
    "destinations",
    "destination_objects",
]
# Set from the clock or the build: they differ between an incremental history and a rebuild.
BUILD_TIME_COLUMNS = {
    "logged_at", "_census_logged_at", "manifest_version", "loaded_at", "inspected_at",
    "manifest_updated_at", "listed_at", "lake_fingerprint", "manifest_listed_at",
}


def comparable_rows(
    spark, schema: str, table: str, leaving_out: tuple[str, int] | None = None
) -> tuple[list[str], list[tuple]]:
    """The table's columns and rows, both sorted, without the build-time columns; `leaving_out`
    (column, value) drops the rows holding that value where the table has the column."""
    frame = spark.table(f"{schema}.{table}")
    if leaving_out is not None and leaving_out[0] in frame.columns:
        column, value = leaving_out
        frame = frame.where(f"{column} is null or {column} != {value}")
    columns = sorted(column for column in frame.columns if column not in BUILD_TIME_COLUMNS)
    return columns, sorted((tuple(row) for row in frame.select(*columns).collect()), key=repr)
