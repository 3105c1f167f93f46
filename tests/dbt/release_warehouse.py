"""A warehouse that an earlier release built, as files: each table's rows as parquet and what
registers it as the release created it (its partition columns), in a folder that
`load_tables` registers again in a test's own SparkSession.

A Derby metastore holds absolute paths and one JVM opens one, so a release's warehouse cannot
be copied or opened beside the test's: it is exported. Strings naming the lake (paths, URIs)
are stored relative to it (`LAKE` stands for the lake's URI), so the tables load beside any
copy of the same lake.

Run as a script with the release's library on PYTHONPATH, it builds the release's canonical
tables from a lake and exports them (tests/dbt/test_upgrade.py runs it; run that module as a
script to write tests/data/warehouse_0_1_0/ again):

    PYTHONPATH=<release checkout>/python python tests/dbt/release_warehouse.py \
        <release checkout> <lake> <work folder> <export folder>
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import StringType

LAKE = "{lake}"
SCHEMA = "release"
TABLES_FILE = "tables.json"


def lake_uri(lake: Path) -> str:
    """The lake's folder as Spark's listing names it."""
    return f"file:{Path(lake).resolve()}"


def with_strings_replaced(frame: DataFrame, old: str, new: str) -> DataFrame:
    strings = [field.name for field in frame.schema.fields if field.dataType == StringType()]
    return frame.withColumns({name: F.replace(name, F.lit(old), F.lit(new)) for name in strings})


def export_tables(session: SparkSession, schema: str, lake: Path, folder: Path) -> None:
    """Every table of `schema` (views are left: a build creates them again) into `folder`."""
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    tables = []
    for table in sorted(session.catalog.listTables(schema), key=lambda table: table.name):
        if table.tableType == "VIEW":
            continue
        name = f"{schema}.{table.name}"
        columns = session.catalog.listColumns(name)
        frame = with_strings_replaced(session.table(name), lake_uri(lake), LAKE)
        frame.coalesce(1).write.parquet(str(folder / table.name))
        for written in (folder / table.name).iterdir():
            if written.name.startswith(("_", ".")):  # _SUCCESS, checksums
                written.unlink()
        tables.append(
            {
                "name": table.name,
                "partition_by": [column.name for column in columns if column.isPartition],
                "schema": frame.schema.simpleString(),
            }
        )
    (folder / TABLES_FILE).write_text(json.dumps(tables, indent=2) + "\n", encoding="utf-8")


def exported_tables(folder: Path) -> list[dict]:
    return json.loads((Path(folder) / TABLES_FILE).read_text(encoding="utf-8"))


def read_exported(session: SparkSession, folder: Path, table: dict, lake: Path) -> DataFrame:
    frame = session.read.parquet(str(Path(folder) / table["name"]))
    return with_strings_replaced(frame, LAKE, lake_uri(lake))


def load_tables(session: SparkSession, folder: Path, schema: str, lake: Path) -> None:
    """The exported tables as the release created them (parquet tables written by
    `saveAsTable`, partitioned as they were) in `schema`, naming `lake`."""
    session.sql(f"drop schema if exists {schema} cascade")
    session.sql(f"create schema {schema}")
    for table in exported_tables(folder):
        frame = read_exported(session, folder, table, lake)
        writer = frame.write.format("parquet").mode("overwrite")
        if table["partition_by"]:
            writer = writer.partitionBy(*table["partition_by"])
        writer.saveAsTable(f"{schema}.{table['name']}")


def small_data_session(warehouse: Path) -> SparkSession:
    """The release's `local_session`, with the settings of the test sessions (the current
    `sync_logs.spark.local_session(small_data=True)`, which the release lacks)."""
    warehouse.mkdir(parents=True, exist_ok=True)
    java_options = (
        f"-Dderby.system.home={warehouse} -XX:TieredStopAtLevel=1 "
        "-XX:ReservedCodeCacheSize=512m -Dderby.system.durability=test"
    )
    return (
        SparkSession.builder.master("local[*]")
        .appName("sync_logs")
        .enableHiveSupport()
        .config("spark.sql.warehouse.dir", str(warehouse))
        .config(
            "spark.hadoop.javax.jdo.option.ConnectionURL",
            "jdbc:derby:;databaseName=metastore_db;create=true",
        )
        .config("spark.driver.extraJavaOptions", java_options)
        .config("spark.driver.memory", "2g")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.sql.adaptive.enabled", "false")
        .config("spark.sql.codegen.wholeStage", "false")
        .config("spark.sql.ansi.enabled", "false")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .getOrCreate()
    )


def build_release(release: Path, lake: Path, work: Path, export: Path) -> None:
    """The release's canonical tables built from `lake` (`dbt run`, its own library, in a
    SparkSession of its own in `work`), then exported to `export`."""
    from sync_logs.dbt_invoke import run_dbt  # the release's library

    warehouse = work / "warehouse"
    os.environ["PYSPARK_PYTHON"] = sys.executable
    session = small_data_session(warehouse)
    run_dbt(
        ["run", "--select", "path:models/canonical"],
        project_dir=release,
        target_dir=work,
        dbt_vars={"raw_root": str(lake)},  # the release's name of sync_logs_raw_root
        env={"SYNC_LOGS_SCHEMA": SCHEMA, "SYNC_LOGS_WAREHOUSE_DIR": str(warehouse)},
    )
    export_tables(session, SCHEMA, lake, export)
    session.stop()


if __name__ == "__main__":
    build_release(*(Path(argument).resolve() for argument in sys.argv[1:5]))
