"""Reads (and writes a little) through the user's own dbt project, profile and target.

`sync-logs report` and `sync-logs notify` run their queries with dbt's programmatic API in this
process, as `sync-logs export-csv` does: the project is parsed once, then each query is a
`dbt show --inline` (so it works on every warehouse dbt connects to) and each write a
`dbt run-operation` of a package macro. Queries are cross-warehouse SQL that aggregates in the
warehouse; every result is bounded by a `--limit`.
"""

from __future__ import annotations

import datetime as dt
import decimal
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import yaml

PACKAGE = "sync_logs"
ANCHOR_MART = "sync_logs__sync_health"


class WarehouseError(ValueError):
    """dbt could not parse the project, compile a query or run it."""


@dataclass
class Relation:
    """Where a relation the tools read lives, and whether it exists in the warehouse."""

    name: str
    in_project: bool  # a node of the sync_logs package in this project
    exists: bool = False
    database: str | None = None
    schema: str | None = None
    identifier: str | None = None
    rendered: str | None = None  # the quoted name to put in SQL
    columns: list[str] = field(default_factory=list)

    def has_columns(self, *names: str) -> bool:
        present = {c.lower() for c in self.columns}
        return all(n.lower() in present for n in names)


def plain(value: object) -> object:
    """A JSON-friendly value: ISO text for times, floats or ints for decimals."""
    if isinstance(value, dt.datetime):
        if value.tzinfo is not None:
            value = value.astimezone(dt.timezone.utc).replace(tzinfo=None)
        return value.isoformat(sep=" ", timespec="seconds")
    if isinstance(value, dt.date):
        return value.isoformat()
    if isinstance(value, decimal.Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    if isinstance(value, float) and value != value:  # NaN
        return None
    return value


def sql_string(text: str) -> str:
    """A SQL string literal (single quotes doubled)."""
    return "'" + str(text).replace("'", "''") + "'"


def jinja_string(text: str) -> str:
    """A Jinja string literal."""
    return json.dumps(str(text))


def jinja_value(text: str | None) -> str:
    """A Jinja string literal, or `none`."""
    return "none" if text is None else jinja_string(text)


def dbt_common_args(
    project_dir: str | None = None,
    profiles_dir: str | None = None,
    target: str | None = None,
    target_path: str | None = None,
    user_vars: str | Mapping | None = None,
) -> list[str]:
    """The dbt flags every invocation shares (the caller's project, profile, target, vars)."""
    args: list[str] = []
    for flag, value in (("--project-dir", project_dir), ("--profiles-dir", profiles_dir),
                        ("--target", target), ("--target-path", target_path)):
        if value is not None:
            args += [flag, str(value)]
    if user_vars:
        parsed = yaml.safe_load(user_vars) if isinstance(user_vars, str) else dict(user_vars)
        if not isinstance(parsed, Mapping):
            raise WarehouseError(f"--vars must be a YAML mapping, got {user_vars!r}")
        args += ["--vars", json.dumps(dict(parsed), default=str)]
    return args


class Warehouse:
    """One parsed dbt project; runs bounded queries and package macros on its target."""

    def __init__(self, dbt_args: Sequence[str] = ()):
        from dbt.cli.main import dbtRunner

        self.dbt_args = list(dbt_args)
        result = dbtRunner().invoke(["parse", "--log-level", "warn", "--no-write-json",
                                     *self.dbt_args])
        if not result.success or result.result is None:
            reason = result.exception or "see the dbt log"
            raise WarehouseError(f"dbt parse failed: {reason}")
        self.manifest = result.result
        self.adapter_type = self.manifest.metadata.adapter_type
        self.queries = 0

    def _runner(self):
        from dbt.cli.main import dbtRunner

        return dbtRunner(manifest=self.manifest)

    def has_node(self, name: str) -> bool:
        """Whether the sync_logs package defines an enabled model `name` in this project."""
        return f"model.{PACKAGE}.{name}" in self.manifest.nodes

    def query(self, sql: str, limit: int) -> tuple[list[str], list[tuple]]:
        """Runs `sql` (Jinja allowed: refs, package macros) with `dbt show --inline`, at most
        `limit` rows; returns lower-cased column names and plain-valued rows."""
        command = ["show", "--inline", sql, "--limit", str(int(limit)), "--log-level", "none",
                   "--no-write-json", *self.dbt_args]
        result = self._runner().invoke(command)
        self.queries += 1
        runs = list(getattr(result.result, "results", None) or [])
        if not result.success or len(runs) != 1 or runs[0].agate_table is None:
            reasons = [str(result.exception)] if result.exception else []
            reasons += [r.message for r in runs if getattr(r, "message", None)]
            raise WarehouseError(f"dbt show failed: {'; '.join(reasons) or 'see the dbt log'}")
        table = runs[0].agate_table
        columns = [c.lower() for c in table.column_names]
        return columns, [tuple(plain(v) for v in row.values()) for row in table.rows]

    def records(self, sql: str, limit: int) -> list[dict]:
        columns, rows = self.query(sql, limit)
        return [dict(zip(columns, row, strict=True)) for row in rows]

    def run_operation(self, macro: str, args: Mapping[str, object]) -> None:
        command = ["run-operation", f"{PACKAGE}.{macro}", "--args",
                   json.dumps(dict(args), default=str), "--log-level", "warn", "--no-write-json",
                   *self.dbt_args]
        result = self._runner().invoke(command)
        if not result.success:
            reason = result.exception or "see the dbt log"
            raise WarehouseError(f"dbt run-operation {PACKAGE}.{macro} failed: {reason}")

    def locate(self, names: Iterable[str],
               extra: Mapping[str, tuple[str | None, str | None, str]] = ()
               ) -> dict[str, Relation]:
        """Finds each named relation in one query: a model of the package through `ref`, any
        other name beside the package's marts (where a newer package version builds it, or a
        user loaded it). `extra` adds relations at a given (database, schema, identifier);
        None is the target's database (where it has one) or schema (macro `relation_in_schema`).
        Returns every name, with `exists` false where the warehouse has no such relation."""
        names = list(dict.fromkeys(names))
        extra = dict(extra or {})
        if not self.has_node(ANCHOR_MART) and not extra:
            raise WarehouseError(
                f"the model {ANCHOR_MART} is not in this dbt project: is the sync_logs package "
                "installed (packages.yml, dbt deps) and are its marts enabled?"
            )
        parts = []
        if self.has_node(ANCHOR_MART):
            parts.append(f"{{%- set anchor = ref('{PACKAGE}', '{ANCHOR_MART}') -%}}")
        for index, name in enumerate([*names, *extra]):
            if name in extra:
                database, schema, identifier = extra[name]
                wanted = (f"{PACKAGE}.relation_in_schema({jinja_string(identifier)}, "
                          f"{jinja_value(schema)}, {jinja_value(database)})")
                locate = ("adapter.get_relation(database=wanted.database, schema=wanted.schema, "
                          "identifier=wanted.identifier)")
                fallback = "wanted"
                parts.append(f"{{%- set wanted = {wanted} -%}}")
            elif self.has_node(name):
                locate = f"load_relation(ref('{PACKAGE}', {jinja_string(name)}))"
                fallback = f"ref('{PACKAGE}', {jinja_string(name)})"
            else:
                locate = ("adapter.get_relation(database=anchor.database, schema=anchor.schema, "
                          f"identifier={jinja_string(name)})")
                fallback = f"anchor.incorporate(path={{'identifier': {jinja_string(name)}}})"
            parts.append(
                f"{{%- set found = {locate} -%}}"
                f"{{%- set rel = found if found is not none else {fallback} -%}}"
                "{%- set cols = adapter.get_columns_in_relation(found) | map(attribute='name') "
                "| join(',') if found is not none else '' %}"
                f"{chr(10) + 'union all' + chr(10) if index else ''}"
                f"select {sql_string(name)} as relation_name, "
                "{{ 1 if found is not none else 0 }} as relation_exists, "
                "'{{ rel.database or '' }}' as relation_database, "
                "'{{ rel.schema or '' }}' as relation_schema, "
                "'{{ rel.identifier }}' as relation_identifier, "
                "'{{ rel | replace(\"'\", \"''\") }}' as relation_rendered, "
                "'{{ cols | replace(\"'\", \"''\") }}' as relation_columns"
            )
        rows = self.records("\n".join(parts), limit=len(names) + len(extra) + 1)
        found: dict[str, Relation] = {}
        for row in rows:
            name = row["relation_name"]
            found[name] = Relation(
                name=name,
                in_project=self.has_node(name),
                exists=bool(row["relation_exists"]),
                database=row["relation_database"] or None,
                schema=row["relation_schema"] or None,
                identifier=row["relation_identifier"],
                rendered=row["relation_rendered"],
                columns=[c for c in (row["relation_columns"] or "").split(",") if c],
            )
        return found
