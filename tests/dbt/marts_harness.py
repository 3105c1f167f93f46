"""Builds the integration project (tests/dbt/project) on one engine and reads marts back.

Engines: `spark` (the session's embedded Spark via profiles.example.yml's `local` target),
`postgres` (tests/services/postgres.sh) and `duckdb` (a file), all over the same seeds."""

import datetime as dt
import decimal
import os
import uuid
from pathlib import Path

import pytest

import dbt_deps
from sync_logs_dev.dbt_invoke import run_dbt

PROJECT = Path(__file__).resolve().parent / "project"
PROFILES = Path(__file__).resolve().parent / "profiles"

MARTS = [
    "sync_logs__errors",
    "sync_logs__errors_by_sync",
    "sync_logs__errors_by_destination",
    "sync_logs__new_errors",
    "sync_logs__error_trend_daily",
    "sync_logs__audience_events",
    "sync_logs__membership_history",
    "sync_logs__current_members",
    "sync_logs__field_diffs",
    "sync_logs__row_lifecycle",
    "sync_logs__flapping_rows",
    "sync_logs__row_operations",
    "sync_logs__sync_health",
]
# the package's sync-scoped incremental intermediates (config sync_logs_sync_scoped)
SYNC_SCOPED_INTERMEDIATES = [
    "int_sync_logs__row_runs",
    "int_sync_logs__membership_transitions",
    "int_sync_logs__error_rows",
    "int_sync_logs__daily_attempts",
    "int_sync_logs__run_error_classes",
]

PG_SCRIPT = "tests/services/postgres.sh"


def pg_settings() -> dict:
    return {
        "host": os.environ.get("SYNC_LOGS_PG_HOST", "127.0.0.1"),
        "port": int(os.environ.get("SYNC_LOGS_PG_PORT", "54329")),
        "user": os.environ.get("SYNC_LOGS_PG_USER", "postgres"),
        "password": os.environ.get("SYNC_LOGS_PG_PASSWORD", ""),
        "dbname": os.environ.get("SYNC_LOGS_PG_DATABASE", "postgres"),
    }


def pg_connect():
    """A psycopg2 connection, or a test failure that says how to start the server."""
    import psycopg2

    settings = pg_settings()
    try:
        connection = psycopg2.connect(connect_timeout=5, **settings)
    except psycopg2.OperationalError as error:
        pytest.fail(
            f"PostgreSQL is not reachable at {settings['host']}:{settings['port']} "
            f"({error}). Start it with `{PG_SCRIPT}` (set SYNC_LOGS_PG_HOST/PORT/USER/"
            "PASSWORD/DATABASE to use another server).",
            pytrace=False,
        )
    connection.autocommit = True
    return connection


def unique_schema(prefix: str) -> str:
    return f"{prefix}_{uuid.uuid4().hex[:8]}"


def normalise(value):
    """Engine-neutral form: timestamps as UTC ISO text, numbers rounded, booleans as bool."""
    if value is None:
        return None
    if isinstance(value, bool):
        return value
    if isinstance(value, dt.datetime):
        if value.tzinfo is not None:
            value = value.astimezone(dt.UTC).replace(tzinfo=None)
        return value.isoformat(sep=" ")
    if isinstance(value, dt.date):
        return value.isoformat()
    if isinstance(value, decimal.Decimal | float | int):
        number = round(float(value), 6)
        return 0.0 if number == 0 else number
    return str(value)


def normalise_rows(columns: list[str], rows) -> list[dict]:
    result = [{c: normalise(v) for c, v in zip(columns, row, strict=True)} for row in rows]
    # by column name: Spark moves a table's partition columns (sync_id) to the end
    return sorted(result, key=lambda row: [(row[c] is None, str(row[c])) for c in sorted(row)])


def install_package() -> None:
    """`dbt deps`: links this repository into the project's dbt_packages as `sync_logs`."""
    dbt_deps.install_package(PROJECT)


class Build:
    """One engine's build of the integration project in its own schema."""

    def __init__(self, engine: str, work: Path, source: str = "tables", spark=None):
        self.engine = engine
        self.work = work
        self.source = source
        self.spark = spark
        self.schema = unique_schema(f"marts_{engine}_{source}")
        self.duckdb_path = work / "marts.duckdb"
        self.env = {"SYNC_LOGS_SCHEMA": self.schema, "SYNC_LOGS_DUCKDB_PATH": str(self.duckdb_path)}
        self.dbt_vars = {"sync_logs_source": source}
        if source == "hightouch":
            self.dbt_vars["sync_logs_hightouch_schema"] = self.schema
        if source == "census":
            self.dbt_vars["sync_logs_census_schema"] = self.schema
        if engine == "postgres":
            pg_connect().close()

    def dbt(self, *args: str, more_vars: dict | None = None):
        extra = [] if self.engine == "spark" else ["--target", self.engine]
        return run_dbt(
            [*args, *extra],
            project_dir=PROJECT,
            target_dir=self.work,
            dbt_vars={**self.dbt_vars, **(more_vars or {})},
            env=self.env,
            profiles_dir=None if self.engine == "spark" else PROFILES,
        )

    def build(self, unit_tests: bool = False) -> "Build":
        """Seeds, then `dbt build` of models and data tests; the package's unit tests only when
        asked (var `sync_logs_unit_tests`: test_marts_engines runs them once per engine,
        elsewhere they would only repeat), and then they must have run."""
        install_package()
        self.seed()
        return self.build_models(unit_tests)

    def seed(self) -> None:
        """The fixture's seeds of this source, and the package's."""
        self.dbt("seed", "--select", f"tag:fixture_{self.source}", "package:sync_logs")

    def build_models(self, unit_tests: bool = False) -> "Build":
        """`dbt build` of models and data tests (see `build`)."""
        built = self.dbt("build", "--exclude", "resource_type:seed",
                         more_vars={"sync_logs_unit_tests": unit_tests})
        ran = {r.node.name for r in built.result.results if r.node.resource_type == "unit_test"}
        assert bool(ran) == unit_tests, f"unit tests run: {sorted(ran)}"
        return self

    def rows(self, relation: str) -> list[dict]:
        query = f"select * from {self.schema}.{relation}"
        if self.engine == "spark":
            # Collected timestamps would be shifted to the Python process's zone: read them as
            # text in the session's zone (UTC) instead.
            frame = self.spark.sql(query)
            frame = frame.selectExpr(*[
                f"cast(`{f.name}` as string) as `{f.name}`"
                if f.dataType.typeName() in ("timestamp", "timestamp_ntz") else f"`{f.name}`"
                for f in frame.schema.fields
            ])
            return normalise_rows(frame.columns, [tuple(r) for r in frame.collect()])
        if self.engine == "duckdb":
            import duckdb

            # dbt-duckdb keeps its read-write connection open in this process: same config
            with duckdb.connect(str(self.duckdb_path)) as connection:
                result = connection.execute(query)
                columns = [d[0] for d in result.description]
                return normalise_rows(columns, result.fetchall())
        connection = pg_connect()
        try:
            with connection.cursor() as cursor:
                cursor.execute(query)
                columns = [d[0] for d in cursor.description]
                return normalise_rows(columns, cursor.fetchall())
        finally:
            connection.close()

    def execute(self, *statements: str) -> None:
        """Runs SQL statements (e.g. writing input tables) in this build's warehouse."""
        if self.engine == "spark":
            for statement in statements:
                self.spark.sql(statement)
            return
        if self.engine == "duckdb":
            import duckdb

            with duckdb.connect(str(self.duckdb_path)) as connection:
                for statement in statements:
                    connection.execute(statement)
            return
        connection = pg_connect()
        try:
            with connection.cursor() as cursor:
                for statement in statements:
                    cursor.execute(statement)
        finally:
            connection.close()

    def drop(self):
        if self.engine == "postgres":
            connection = pg_connect()
            try:
                with connection.cursor() as cursor:
                    cursor.execute(f"drop schema if exists {self.schema} cascade")
            finally:
                connection.close()
