"""The parallelism the session asks for: `spark.sql.shuffle.partitions`, where it is a number."""

from pyspark.sql import SparkSession


def shuffle_partitions(session: SparkSession) -> int | None:
    """spark.sql.shuffle.partitions as a number; None where it is not one (`auto` on
    Databricks)."""
    configured = session.conf.get("spark.sql.shuffle.partitions")
    return int(configured) if configured.isdigit() else None
