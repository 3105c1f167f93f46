"""The consumer project (tests/consumer_project): install, build, read back."""

import json
import os
from dataclasses import dataclass
from pathlib import Path

import dbt_deps
from sync_logs_dev.dbt_invoke import run_dbt
from sync_logs_dev.generator import GenerateSummary

CONSUMER = Path(__file__).resolve().parents[1] / "consumer_project"
REPO = Path(__file__).resolve().parents[2]

# The consumer's overrides, as its dbt_project.yml writes them.
SCHEMA = "consumer"
PACKAGE_SCHEMA = f"{SCHEMA}_sync_logs_obs"


def isolated_env() -> dict[str, str]:
    """This process's environment without what would leak the test session into a new Python
    environment: PySpark's worker interpreter, PYTHONPATH, pytest's and dbt's variables and
    the package's own (warehouse folder, schema, parse cache, session settings)."""
    leaks = ("PYSPARK_", "SPARK_", "DBT_", "SYNC_LOGS_", "PYTEST_")
    return {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(leaks)
        and key not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "PYTHONNOUSERSITE")
    }


def install_package() -> None:
    """`dbt deps` in the consumer project: links this checkout in as dbt_packages/sync_logs."""
    dbt_deps.install_package(CONSUMER)


@dataclass
class ConsumerBuild:
    lake: GenerateSummary
    work: Path
    spark: object

    @property
    def artifacts(self) -> Path:
        return self.work / "dbt"

    def dbt(self, *args: str, **kwargs):
        return run_dbt(
            list(args),
            project_dir=CONSUMER,
            target_dir=self.work,
            dbt_vars={"sync_logs_raw_root": str(self.lake.out_dir), **kwargs.pop("dbt_vars", {})},
            env={"SYNC_LOGS_SCHEMA": SCHEMA},
            **kwargs,
        )

    def manifest(self) -> dict:
        return json.loads((self.artifacts / "manifest.json").read_text())

    def catalog(self) -> dict:
        return json.loads((self.artifacts / "catalog.json").read_text())

    def rows(self, sql: str) -> list[dict]:
        return [row.asDict() for row in self.spark.sql(sql).collect()]
