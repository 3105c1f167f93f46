"""The sparksession plugin: Python models share the session, fail loudly, never half-write."""

import textwrap
from pathlib import Path

import pytest

from sync_logs.dbt_invoke import run_dbt

SCHEMA = "adapter_smoke"


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip())


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("adapter_project")
    write(
        root / "dbt_project.yml",
        """
        name: adapter_smoke
        version: "1.0.0"
        config-version: 2
        profile: sync_logs
        vars:
          fail_model: false
        models:
          adapter_smoke:
            +file_format: parquet
        """,
    )
    write(
        root / "models/squares.py",
        """
        from pyspark.sql import functions as F


        def squares(session, n):
            return session.range(1, n + 1).select(
                F.col("id").alias("n"),
                (F.col("id") * F.col("id")).alias("square"),
                (F.col("id") % 2).alias("parity"),
            )


        def model(dbt, session):
            dbt.config(materialized="table", partition_by=["parity"])
            if dbt.config.get("fail_model"):
                raise ValueError("squares refused to build")
            return squares(session, 6)
        """,
    )
    write(
        root / "models/schema.yml",
        """
        models:
          - name: squares
            config:
              fail_model: "{{ var('fail_model') }}"
        """,
    )
    write(
        root / "models/square_totals.sql",
        """
        {{ config(materialized="table") }}
        select parity, sum(square) as total, count(*) as numbers
        from {{ ref('squares') }}
        group by parity
        """,
    )
    return root


def build(project: Path, tmp_path: Path, **dbt_vars):
    return run_dbt(
        ["build"], project_dir=project, target_dir=tmp_path, dbt_vars=dbt_vars,
        env={"SYNC_LOGS_SCHEMA": SCHEMA},
    )


def test_python_then_sql_model_build_in_the_shared_session(spark, warehouse, project, tmp_path):
    build(project, tmp_path)

    rows = spark.table(f"{SCHEMA}.square_totals").collect()
    totals = {row.parity: (row.total, row.numbers) for row in rows}
    assert totals == {0: (4 + 16 + 36, 3), 1: (1 + 9 + 25, 3)}
    table_dir = warehouse / f"{SCHEMA}.db" / "squares"
    assert sorted(p.name for p in table_dir.glob("parity=*")) == ["parity=0", "parity=1"]


def test_failing_model_reports_its_traceback_and_keeps_the_old_table(spark, project, tmp_path):
    build(project, tmp_path)
    with pytest.raises(RuntimeError) as failure:
        build(project, tmp_path, fail_model=True)
    assert "dbt build failed" in str(failure.value)

    log = (tmp_path / "logs" / "dbt.log").read_text()
    assert "Python model squares failed" in log
    assert 'raise ValueError("squares refused to build")' in log
    assert "ValueError: squares refused to build" in log
    assert spark.table(f"{SCHEMA}.squares").count() == 6
    tables = {row.tableName for row in spark.sql(f"show tables in {SCHEMA}").collect()}
    assert "squares__dbt_new" not in tables
