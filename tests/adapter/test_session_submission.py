"""The sparksession plugin: Python models share the session, fail loudly, never half-write, and
write an incremental run's new rows once, or not at all when there are none; views with
`keep_unchanged_view` are created again only when their definition changed."""

import json
import textwrap
from pathlib import Path

import pytest

from sync_logs_dev.dbt_invoke import run_dbt

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
          up_to: 4
          view_parity: 1
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
    for name, partitions in (("squares_log", ', partition_by=["parity"]'), ("squares_all", "")):
        write(
            root / f"models/{name}.py",
            f"""
            from pyspark.sql import functions as F


            def model(dbt, session):
                dbt.config(materialized="incremental", incremental_strategy="insert_overwrite"
                           {partitions})
                up_to = int(dbt.config.get("up_to"))
                numbers = session.range(1, up_to + 1).select(
                    F.col("id").alias("n"), (F.col("id") % 2).alias("parity"))
                if not dbt.is_incremental:
                    return numbers
                previous = session.table(str(dbt.this))
                new = numbers.join(previous, "n", "left_anti")
                if not {bool(partitions)}:  # the whole table is replaced: all of it
                    return previous.unionByName(new)
                if new.isEmpty():
                    return previous.limit(0)
                # the parities the new numbers touch, whole: old rows and new
                touched = previous.join(new.select("parity").distinct(), "parity", "left_semi")
                return touched.unionByName(new)
            """,
        )
    write(
        root / "models/schema.yml",
        """
        models:
          - name: squares
            config:
              fail_model: "{{ var('fail_model') }}"
          - name: squares_log
            config:
              up_to: "{{ var('up_to') }}"
          - name: squares_all
            config:
              up_to: "{{ var('up_to') }}"
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
    for name, kept in (("odd_squares", "true"), ("odd_squares_always_created", "false")):
        write(
            root / f"models/{name}.sql",
            f"""
            {{{{ config(materialized="view", keep_unchanged_view={kept}) }}}}
            select n, square
            from {{{{ ref('squares') }}}}
            where parity = {{{{ var('view_parity') }}}}
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


def run_models(project: Path, target: Path, models: list[str], *flags: str, **dbt_vars):
    """`dbt run` of `models`; {model: dbt's message}."""
    run_dbt(
        ["run", "--select", *models, *flags], project_dir=project, target_dir=target,
        dbt_vars=dbt_vars, env={"SYNC_LOGS_SCHEMA": SCHEMA},
    )
    results = json.loads((target / "dbt" / "run_results.json").read_text())["results"]
    return {r["unique_id"].rsplit(".", 1)[1]: r["message"] for r in results}


def run_incremental(project: Path, target: Path, up_to: int) -> dict[str, str]:
    """`dbt run` of the two incremental models."""
    return run_models(project, target, ["squares_log", "squares_all"], up_to=up_to)


def test_incremental_python_model_writes_new_rows_once_and_nothing_when_none(
    spark, warehouse, project, tmp_path
):
    def numbers(table):
        return sorted(tuple(row) for row in spark.table(f"{SCHEMA}.{table}").collect())

    def files(table):
        folder = warehouse / f"{SCHEMA}.db" / table
        return {p: p.stat().st_mtime_ns for p in folder.rglob("*.parquet")}

    spark.sql(f"drop table if exists {SCHEMA}.squares_log")
    spark.sql(f"drop table if exists {SCHEMA}.squares_all")
    run_incremental(project, tmp_path / "first", 4)
    messages = run_incremental(project, tmp_path / "more", 7)
    expected = [(n, n % 2) for n in range(1, 8)]
    assert numbers("squares_log") == expected  # a view read its own target: partitions replaced
    assert numbers("squares_all") == expected  # no partitions: through a temporary table
    assert messages["squares_log"] == "OK"
    tables = {row.tableName for row in spark.sql(f"show tables in {SCHEMA}").collect()}
    assert not {t for t in tables if t.endswith("__dbt_tmp")}, tables

    before = files("squares_log")
    messages = run_incremental(project, tmp_path / "nothing_new", 7)
    assert messages["squares_log"] == "OK: no new rows, nothing written"
    assert files("squares_log") == before
    assert numbers("squares_log") == expected
    assert numbers("squares_all") == expected


def run_views(project: Path, target: Path, *flags: str, **dbt_vars) -> dict[str, str]:
    """`dbt run` of the two views."""
    return run_models(project, target, ["odd_squares", "odd_squares_always_created"], *flags,
                      **dbt_vars)


def test_view_is_kept_while_its_definition_is_unchanged(spark, project, tmp_path):
    def squares(view):
        return sorted(row.square for row in spark.table(f"{SCHEMA}.{view}").collect())

    build(project, tmp_path / "build")
    spark.sql(f"drop view if exists {SCHEMA}.odd_squares")
    created = run_views(project, tmp_path / "created")
    assert created == {"odd_squares": "OK", "odd_squares_always_created": "OK"}

    kept = run_views(project, tmp_path / "kept")
    assert kept == {"odd_squares": "OK: unchanged, kept", "odd_squares_always_created": "OK"}
    assert squares("odd_squares") == [1, 9, 25]

    changed = run_views(project, tmp_path / "changed", view_parity=0)
    assert changed["odd_squares"] == "OK"
    assert squares("odd_squares") == [4, 16, 36]

    refreshed = run_views(project, tmp_path / "refreshed", "--full-refresh", view_parity=0)
    assert refreshed["odd_squares"] == "OK"

    # replaced by hand, without the stored definition: created again
    spark.sql(f"create or replace view {SCHEMA}.odd_squares as select 1 as n, 1 as square")
    replaced = run_views(project, tmp_path / "replaced", view_parity=0)
    assert replaced["odd_squares"] == "OK"
    assert squares("odd_squares") == [4, 16, 36]
