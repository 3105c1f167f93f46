"""The embedded SparkSession, configured as the `local` dbt target configures it."""

import os
import sys
from pathlib import Path

from pyspark.sql import SparkSession


def warehouse_dir() -> Path:
    return Path(os.environ.get("SYNC_LOGS_WAREHOUSE_DIR", "target/warehouse")).resolve()


# A JVM that lives a few minutes over small tables (the test suite) spends most of its CPU
# compiling: C2 compiles Spark's own code and the classes generated for each query. C1-compiled
# code and plans without whole-stage code generation cut that JVM's CPU from 155 s to 91 s for
# five dbt invocations of the integration project, and their wall time from 126 s to 97 s.
# In the whole suite's CI the worker time fell by 4% only: the modules that plan larger
# queries got slower. Large builds want the defaults: their rows run through the compiled code.
# (Interpreted expressions too, `spark.sql.codegen.factoryMode=NO_CODEGEN`, would save 15 s
# more, but `spark.catalog.listTables` fails under it in Spark 4.)
# Derby, the metastore's database, in its documented test durability: no disk sync at each
# commit (a test warehouse is thrown away), and 4,000 generated classes kept instead of 100
# (a test session's statements recur across dbt invocations and modules). Together they took
# the hand-made lake's build and the manifest's unit tests from 108.7 s to 98.5 s (medians,
# alternating runs).
SMALL_DATA_JAVA_OPTIONS = (
    "-XX:TieredStopAtLevel=1 -XX:ReservedCodeCacheSize=512m -Dderby.system.durability=test"
)
# Adaptive execution plans each query again after every stage: on tables of a few rows that
# replanning is the work. The Spark case of tests/dbt/test_marts_incremental.py took 445 s of
# CPU with the `local` target's settings (adaptive, 4 shuffle partitions), 399 s without
# adaptive execution, 355 s without it and with 2 partitions (353 s with 1).
SMALL_DATA_SETTINGS = {
    "spark.sql.codegen.wholeStage": "false",
    "spark.sql.adaptive.enabled": "false",
    "spark.sql.codegen.cache.maxEntries": "4000",
}
# The `local` target (profiles.example.yml) sets these two settings again on each of dbt's
# statements, from these variables: a small-data session sets them to its own.
TARGET_SETTING_VARIABLES = {
    "spark.sql.adaptive.enabled": "SYNC_LOGS_SPARK_ADAPTIVE",
    "spark.sql.shuffle.partitions": "SYNC_LOGS_SHUFFLE_PARTITIONS",
}


def local_session_settings(
    warehouse: Path,
    driver_memory: str = "4g",
    shuffle_partitions: int = 4,
    small_data: bool = False,
) -> dict[str, str]:
    """The Spark settings of `local_session` (see there)."""
    java_options = f"-Dderby.system.home={warehouse}"
    settings = {
        "spark.sql.warehouse.dir": str(warehouse),
        "spark.hadoop.javax.jdo.option.ConnectionURL":
            "jdbc:derby:;databaseName=metastore_db;create=true",
        "spark.driver.memory": driver_memory,
        "spark.sql.shuffle.partitions": str(shuffle_partitions),
        "spark.sql.adaptive.enabled": "true",
        # as the `local` target: unions are not fused into whole-stage generated code
        "spark.sql.codegen.wholeStage.union.enabled": "false",
        # as the `local` target: no per-key limit (and its sort) before a shuffle
        "spark.sql.optimizer.windowGroupLimitThreshold": "-1",
        # as the `local` target: a table's partitions are listed on the driver
        "spark.sql.sources.parallelPartitionDiscovery.threshold": "1000000",
        "spark.sql.session.timeZone": "UTC",
        "spark.ui.enabled": "false",
        "spark.ui.showConsoleProgress": "false",
    }
    if small_data:
        java_options += f" {SMALL_DATA_JAVA_OPTIONS}"
        settings.update(SMALL_DATA_SETTINGS)
    settings["spark.driver.extraJavaOptions"] = java_options
    return settings


def local_session(
    warehouse: Path | None = None,
    driver_memory: str = "4g",
    shuffle_partitions: int = 4,
    small_data: bool = False,
) -> SparkSession:
    """A Hive-enabled local session whose tables and metastore both live in `warehouse`;
    `small_data` sizes its JVM and plans for small tables (SMALL_DATA_JAVA_OPTIONS,
    SMALL_DATA_SETTINGS), also in the `local` target's statements (TARGET_SETTING_VARIABLES).

    ANSI mode stays at Spark 4's default (on), as in the `local` target's builds."""
    warehouse = (warehouse or warehouse_dir()).resolve()
    # Python workers (mapInArrow in the canonical models) need this interpreter's pyarrow;
    # PySpark reads the variable when the SparkContext starts.
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    warehouse.mkdir(parents=True, exist_ok=True)
    settings = local_session_settings(warehouse, driver_memory, shuffle_partitions, small_data)
    if small_data:
        for setting, variable in TARGET_SETTING_VARIABLES.items():
            os.environ[variable] = settings[setting]
    return (
        SparkSession.builder.master("local[*]")
        .appName("sync_logs")
        .enableHiveSupport()
        .config(map=settings)
        .getOrCreate()
    )
