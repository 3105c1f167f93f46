"""The embedded SparkSession, configured as the `local` dbt target configures it."""

import os
import sys
from pathlib import Path

from pyspark.sql import SparkSession


def warehouse_dir() -> Path:
    return Path(os.environ.get("SYNC_LOGS_WAREHOUSE_DIR", "target/warehouse")).resolve()


def local_session(
    warehouse: Path | None = None, driver_memory: str = "4g", shuffle_partitions: int = 4
) -> SparkSession:
    """A Hive-enabled local session whose tables and metastore both live in `warehouse`.

    ANSI mode stays at Spark 4's default (on), as in the `local` target's builds."""
    warehouse = (warehouse or warehouse_dir()).resolve()
    # Python workers (mapInArrow in the canonical models) need this interpreter's pyarrow;
    # PySpark reads the variable when the SparkContext starts.
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    warehouse.mkdir(parents=True, exist_ok=True)
    return (
        SparkSession.builder.master("local[*]")
        .appName("sync_logs")
        .enableHiveSupport()
        .config("spark.sql.warehouse.dir", str(warehouse))
        .config(
            "spark.hadoop.javax.jdo.option.ConnectionURL",
            "jdbc:derby:;databaseName=metastore_db;create=true",
        )
        .config("spark.driver.extraJavaOptions", f"-Dderby.system.home={warehouse}")
        .config("spark.driver.memory", driver_memory)
        .config("spark.sql.shuffle.partitions", str(shuffle_partitions))
        .config("spark.sql.adaptive.enabled", "true")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .getOrCreate()
    )
