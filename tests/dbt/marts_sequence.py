"""The inputs of test_marts_incremental: the fixture's changelog and runs (the seeds of
tests/dbt/project/seeds/tables) as they stand after each step of a sequence of loads, written
as tables `seq_sync_changelog` and `seq_sync_runs` beside the seeds with SQL that runs on
Spark, PostgreSQL and DuckDB.

Each step names the fixture rows it leaves out and the rows it adds (literal rows, cast to the
seeds' types); the other canonical tables stay the fixture's."""

import csv
from dataclasses import dataclass, replace

from marts_harness import PROJECT

CHANGELOG = "seq_sync_changelog"
RUNS = "seq_sync_runs"
# what the integration project reads instead of the fixture's changelog and runs
DBT_VARS = {
    "sync_logs_tables_sync_changelog_identifier": CHANGELOG,
    "sync_logs_tables_sync_runs_identifier": RUNS,
}

TIMESTAMPS = {"batch_started_at", "batch_ended_at", "logged_at", "started_at", "finished_at"}
BIGINTS = {"org_id", "sync_id", "sync_run_id", "workspace_id", "model_id", "source_id",
           "source_object_id", "destination_id", "destination_object_id"}


def seed_columns(seed: str) -> list[str]:
    with open(PROJECT / "seeds" / "tables" / f"{seed}.csv", newline="") as file:
        return next(csv.reader(file))


def column_type(engine: str, column: str) -> str:
    if column in TIMESTAMPS:
        return "timestamp"
    if column in BIGINTS or column.startswith("num_"):
        return "bigint"
    if column == "payload_changed":
        return "boolean"
    return "string" if engine == "spark" else "varchar"


def literal(value) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    # Spark reads '' inside a literal as two literals: the rows below hold no quote
    assert "'" not in value, value
    return f"'{value}'"


def select_literal(engine: str, columns: list[str], row: dict) -> str:
    unknown = set(row) - set(columns)
    assert not unknown, unknown
    return "select " + ", ".join(
        f"cast({literal(row.get(c))} as {column_type(engine, c)}) as {c}" for c in columns)


def input_sql(engine: str, schema: str, seed: str, key: str, left_out, added) -> str:
    """The fixture's `seed` without the rows whose `key` is in `left_out`, plus `added`."""
    kept = f"select * from {schema}.{seed}"
    if left_out:
        kept += f" where {key} not in ({', '.join(literal(v) for v in sorted(left_out))})"
    columns = seed_columns(seed)
    return " union all ".join([kept, *(select_literal(engine, columns, row) for row in added)])


@dataclass(frozen=True)
class Step:
    name: str
    left_out_logs: frozenset = frozenset()  # fixture changelog rows (log_id) not loaded (yet)
    left_out_runs: frozenset = frozenset()  # fixture runs (sync_run_id) not loaded yet
    logs: tuple = ()  # changelog rows added to the fixture's
    runs: tuple = ()  # runs added to the fixture's

    def statements(self, engine: str, schema: str, first: bool) -> list[str]:
        """Creates the input tables (`first`), or replaces their rows: the views dbt built over
        them stay (PostgreSQL will not drop a table that a view reads)."""
        using = " using parquet" if engine == "spark" else ""
        sources = [
            (CHANGELOG, input_sql(engine, schema, "fixture_sync_changelog", "log_id",
                                  self.left_out_logs, self.logs)),
            (RUNS, input_sql(engine, schema, "fixture_sync_runs", "sync_run_id",
                             self.left_out_runs, self.runs)),
        ]
        statements = []
        for table, query in sources:
            if first:
                statements.append(f"drop table if exists {schema}.{table}")
                statements.append(f"create table {schema}.{table}{using} as {query}")
            elif engine == "spark":  # parquet tables cannot delete
                statements.append(f"insert overwrite table {schema}.{table} {query}")
            else:
                statements.append(f"delete from {schema}.{table}")
                statements.append(f"insert into {schema}.{table} {query}")
        return statements


def log(log_id, run, op_type, row_id, status, fields, day, logged_at, failed_reason=None):
    """A changelog row of sync 101 as this package's loader writes it (batch at 06:01 on `day`)."""
    return {
        "log_id": log_id, "org_id": 42, "sync_id": 101, "sync_run_id": run, "op_type": op_type,
        "row_id": row_id, "status": status, "failed_reason": failed_reason, "fields": fields,
        "operation": "delete" if op_type == "removed" else "upsert",
        "raw_status": "succeeded" if status == "succeeded" else "rejected",
        "payload_changed": op_type != "removed",
        "batch_started_at": f"{day} 06:01:00", "batch_ended_at": f"{day} 06:02:00",
        "batch_file": f"records_{'delete' if op_type == 'removed' else 'upsert'}.0.parquet",
        "logged_at": logged_at,
    }


# Run 1006 of sync 101 (Oct 6): u4's removal, which failed in 1005, and u7's add, which timed
# out in 1005, both succeed.
RUN_1006 = {
    "sync_id": 101, "sync_run_id": 1006, "org_id": 42, "workspace_id": 7,
    "primary_key": "user_id", "destination": "Salesforce::Connection",
    "model_name": "High-intent trial users", "model_id": 611, "status": "succeeded",
    "started_at": "2026-10-06 06:00:00", "finished_at": "2026-10-06 06:04:00",
    "behavior": "mirror", "source_id": 5, "source_object_id": 511, "destination_id": 8,
    "destination_object_id": 811,
    "num_planned_add": 1, "num_planned_change": 0, "num_planned_remove": 1,
    "num_attempted_add": 1, "num_attempted_change": 0, "num_attempted_remove": 1,
    "num_succeeded_add": 1, "num_succeeded_change": 0, "num_succeeded_remove": 1,
    "num_failed_add": 0, "num_failed_change": 0, "num_failed_remove": 0,
    "num_invalid": 0, "num_redelivered": 0, "num_records": 2,
}
LOGS_1006 = (
    log("L30", 1006, "removed", "u4", "succeeded", '{"email": "u4@x.com"}', "2026-10-06",
        "2026-10-06 06:30:00"),
    log("L31", 1006, "added", "u7", "succeeded", '{"email": "u7@x.com"}', "2026-10-06",
        "2026-10-06 06:30:00"),
)
# Run 1004 reloaded on Oct 7: u2's change (L15) now failed with another payload, u1's add
# (L14) is gone, u8's add is new; the changed and new rows carry the reload's time.
RELOADED = "2026-10-07 09:00:00"
LOGS_1004_RELOADED = (
    log("L15", 1004, "changed", "u2", "failed", '{"email": "u2@x.com", "plan": "enterprise"}',
        "2026-10-04", RELOADED, failed_reason="Rate limit exceeded, retry later"),
    log("L32", 1004, "added", "u8", "succeeded", '{"email": "u8@x.com"}', "2026-10-04",
        RELOADED),
)
LOGS_1005 = {"L17", "L18", "L19", "L20", "L21"}
LOGS_2001 = {"L24", "L25", "L26"}
# the changelog rows of each sync's oldest run: 1001 and 2003 (both Oct 1)
LOGS_OLDEST = {"L01", "L02", "L03", "L04", "L22", "L23"}

PRUNED = Step(
    "pruned",
    left_out_logs=frozenset({"L14", "L15"} | LOGS_OLDEST),
    logs=LOGS_1006 + LOGS_1004_RELOADED,
    runs=(RUN_1006,),
)

STEPS = [
    # runs 1005 (sync 101) and 2001 (sync 202) have not arrived yet
    Step("first", left_out_logs=frozenset(LOGS_1005 | LOGS_2001),
         left_out_runs=frozenset({1005, 2001})),
    # sync 101's runs 1005 and 1006 arrive
    Step("new_runs", left_out_logs=frozenset(LOGS_2001), left_out_runs=frozenset({2001}),
         logs=LOGS_1006, runs=(RUN_1006,)),
    # sync 202's run 2001 arrives late: it started (Oct 2) before 2002 (Oct 3), built already
    Step("late_run", logs=LOGS_1006, runs=(RUN_1006,)),
    Step("reloaded", left_out_logs=frozenset({"L14", "L15"}),
         logs=LOGS_1006 + LOGS_1004_RELOADED, runs=(RUN_1006,)),
    # retention deletes the changelog rows of runs 1001 and 2003; their runs rows stay
    PRUNED,
    # nothing changed since
    replace(PRUNED, name="idle"),
]
