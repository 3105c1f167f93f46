"""The orders every rule shares: runs by (started_at, run id), records within a run, and the
attempts of a row across runs (the run, then the record)."""

from pyspark.sql import Column
from pyspark.sql import functions as F


def run_key(started_at: str = "sync_run_started_at") -> Column:
    """A run's place in the order of its sync's runs: (start, run id), the start read from
    `started_at` (a run may have a committed and a new start)."""
    return F.struct(
        F.col(started_at).alias("sync_run_started_at"), F.col("sync_run_id").alias("sync_run_id")
    )


def record_order() -> list[Column]:
    """Order of records within a run: batch start (unknown last), batch type and number, file
    name (`records_updated.01.parquet` before `records_updated.1.parquet`: same number), row.
    Two records of a run never tie: a file name and a row index name one record."""
    return [
        F.col("batch_started_at").isNull(),
        F.col("batch_started_at"),
        F.col("batch_type"),
        F.col("batch_number"),
        F.col("batch_file"),
        F.col("batch_row_index"),
    ]


def attempt_order() -> Column:
    """Attempts of a row: by run (started_at, run id), then by `record_order` within the run."""
    return F.struct(F.col("sync_run_started_at"), F.col("sync_run_id"), *record_order())
