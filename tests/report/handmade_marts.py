"""Hand-made relations in the shapes of the package's marts (and the staged runs and
changelog), written into a DuckDB file where tests/report/project's refs point, so that
`sync-logs report` and `sync-logs notify` run through dbt (DuckDB target) without a build.

The story, two syncs over three days:
- sync 101 "High-intent trial users" -> salesforce, runs 1001 (10-01 06:00, 60 s,
  succeeded), 1002 (10-02 06:00, 120 s, failed), 1003 (10-03 06:00, 90 s, succeeded).
  u1 added (1001), its change to a bad email rejected (1002), changed (1003); u2's add
  rate-limited (1001) then added (1002); u3 added (1001) and removed (1003).
- sync 202 "Churn risk" -> braze, runs 2001 (10-02 07:00, 30 s, succeeded), 2002
  (10-03 07:00, 45 s, cancelled). c1 and c2 added (2001); c2's removal rate-limited (2002).
- `sync_logs__incidents` (the documented shape of the incidents mart): inc-101-failed
  (resolved), inc-202-cancelled (open, critical), inc-202-new-error (open, warning).

Every number in the tests is counted off this story by hand.
"""

from pathlib import Path

import duckdb

TS = "timestamp"

RUNS = [
    # sync_id, sync_run_id, model_name, destination, status, error, started_at, finished_at,
    # planned add/change/remove, succeeded add/change/remove
    (101, 1001, "High-intent trial users", "salesforce", "succeeded", None,
     "2026-10-01 06:00:00", "2026-10-01 06:01:00", 3, 0, 0, 2, 0, 0),
    (101, 1002, "High-intent trial users", "salesforce", "failed", "Destination error",
     "2026-10-02 06:00:00", "2026-10-02 06:02:00", 1, 1, 0, 1, 0, 0),
    (101, 1003, "High-intent trial users", "salesforce", "succeeded", None,
     "2026-10-03 06:00:00", "2026-10-03 06:01:30", 0, 1, 1, 0, 1, 1),
    (202, 2001, "Churn risk", "braze", "succeeded", None,
     "2026-10-02 07:00:00", "2026-10-02 07:00:30", 2, 0, 0, 2, 0, 0),
    (202, 2002, "Churn risk", "braze", "cancelled", "Cancelled by user",
     "2026-10-03 07:00:00", "2026-10-03 07:00:45", 0, 0, 1, 0, 0, 0),
]

RATE_LIMIT = "Rate limit exceeded, retry later"
BAD_EMAIL = "Invalid email address"

CHANGELOG = [
    # log_id, sync_id, sync_run_id, row_id, op_type, status, failed_reason, fields, batch time
    ("l1", 101, 1001, "u1", "added", "succeeded", None,
     '{"email":"u1@example.com","plan":"trial"}', "2026-10-01 06:00:10"),
    ("l2", 101, 1001, "u2", "added", "failed", RATE_LIMIT,
     '{"email":"u2@example.com","plan":"trial"}', "2026-10-01 06:00:10"),
    ("l3", 101, 1001, "u3", "added", "succeeded", None,
     '{"email":"u3@example.com","plan":"pro"}', "2026-10-01 06:00:10"),
    ("l4", 101, 1002, "u2", "added", "succeeded", None,
     '{"email":"u2@example.com","plan":"trial"}', "2026-10-02 06:00:10"),
    ("l5", 101, 1002, "u1", "changed", "failed", BAD_EMAIL,
     '{"email":"not-an-email","plan":"trial"}', "2026-10-02 06:00:20"),
    ("l6", 101, 1003, "u1", "changed", "succeeded", None,
     '{"email":"u1@example.org","plan":"pro"}', "2026-10-03 06:00:10"),
    ("l7", 101, 1003, "u3", "removed", "succeeded", None,
     '{"email":"u3@example.com","plan":"pro"}', "2026-10-03 06:00:20"),
    ("l8", 202, 2001, "c1", "added", "succeeded", None, '{"score":7}', "2026-10-02 07:00:05"),
    ("l9", 202, 2001, "c2", "added", "succeeded", None, '{"score":9}', "2026-10-02 07:00:05"),
    ("l10", 202, 2002, "c2", "removed", "failed", RATE_LIMIT, '{"score":9}',
     "2026-10-03 07:00:05"),
]

SYNC_HEALTH = [
    # sync_id, model_name, destination, destination_name, num_runs, succeeded, failed,
    # run_success_rate, p50, p90, p95, max, planned, attempted, succeeded, failed,
    # row_success_rate, first run, last run, last run id, last status, last error
    (101, "High-intent trial users", "salesforce", "Salesforce prod", 3, 2, 1, 2 / 3,
     90.0, 114.0, 117.0, 120.0, 7, 7, 5, 2, 5 / 7, "2026-10-01 06:00:00",
     "2026-10-03 06:00:00", 1003, "succeeded", None),
    (202, "Churn risk", "braze", "Braze", 2, 1, 1, 0.5, 37.5, 43.5, 44.25, 45.0, 3, 3, 2, 1,
     2 / 3, "2026-10-02 07:00:00", "2026-10-03 07:00:00", 2002, "cancelled",
     "Cancelled by user"),
]

ERRORS = [
    # failed_reason, error_category, attempts, rows, syncs, first seen, last seen, ranks
    (RATE_LIMIT, "rate_limit", 2, 2, 2, "2026-10-01 06:00:10", "2026-10-03 07:00:05", 1, 1),
    (BAD_EMAIL, "validation", 1, 1, 1, "2026-10-02 06:00:20", "2026-10-02 06:00:20", 2, 2),
]

NEW_ERRORS = [
    (202, "Churn risk", 2002, "2026-10-03 07:00:00", RATE_LIMIT, "rate_limit", 1, 1),
]

ERROR_ATTEMPTS = [
    # log_id, sync_id, sync_run_id, row_id, status, failed_reason, error_category, attempted_at
    ("l2", 101, 1001, "u2", "failed", RATE_LIMIT, "rate_limit", "2026-10-01 06:00:10"),
    ("l5", 101, 1002, "u1", "failed", BAD_EMAIL, "validation", "2026-10-02 06:00:20"),
    ("l10", 202, 2002, "c2", "failed", RATE_LIMIT, "rate_limit", "2026-10-03 07:00:05"),
]

AUDIENCE_EVENTS = [
    # sync_id, model_name, destination, row_id, event_type, sync_run_id, event_at
    (101, "High-intent trial users", "salesforce", "u1", "entered", 1001, "2026-10-01 06:00:10"),
    (101, "High-intent trial users", "salesforce", "u3", "entered", 1001, "2026-10-01 06:00:10"),
    (101, "High-intent trial users", "salesforce", "u2", "entered", 1002, "2026-10-02 06:00:10"),
    (101, "High-intent trial users", "salesforce", "u3", "exited", 1003, "2026-10-03 06:00:20"),
    (202, "Churn risk", "braze", "c1", "entered", 2001, "2026-10-02 07:00:05"),
    (202, "Churn risk", "braze", "c2", "entered", 2001, "2026-10-02 07:00:05"),
]

ROW_OPERATIONS = [
    # sync_id, row_id, num_attempts, last_status, last_attempted_at
    (101, "u1", 3, "succeeded", "2026-10-03 06:00:10"),
    (101, "u2", 2, "succeeded", "2026-10-02 06:00:10"),
    (101, "u3", 2, "succeeded", "2026-10-03 06:00:20"),
    (202, "c1", 1, "succeeded", "2026-10-02 07:00:05"),
    (202, "c2", 2, "failed", "2026-10-03 07:00:05"),
]

INCIDENTS = [
    # incident_id, sync_id, model_name, destination, kind, severity, status, opened_at,
    # last_seen_at, resolved_at, runs_affected, rows_affected, failed_reason
    ("inc-101-failed", 101, "High-intent trial users", "salesforce", "failed_run", "critical",
     "resolved", "2026-10-02 06:00:00", "2026-10-02 06:00:00", "2026-10-03 06:00:00", 1, 1,
     BAD_EMAIL),
    ("inc-202-cancelled", 202, "Churn risk", "braze", "failed_run", "critical", "open",
     "2026-10-03 07:00:00", "2026-10-03 07:00:00", None, 1, 1, RATE_LIMIT),
    ("inc-202-new-error", 202, "Churn risk", "braze", "new_error_class", "warning", "open",
     "2026-10-03 07:00:00", "2026-10-03 07:00:00", None, 1, 1, RATE_LIMIT),
]

TABLES = {
    "stg_sync_logs__sync_runs": (
        "sync_id bigint, sync_run_id bigint, model_name varchar, destination varchar, "
        "status varchar, error varchar, started_at timestamp, finished_at timestamp, "
        "num_planned_add bigint, num_planned_change bigint, num_planned_remove bigint, "
        "num_succeeded_add bigint, num_succeeded_change bigint, num_succeeded_remove bigint",
        RUNS),
    "stg_sync_logs__sync_changelog": (
        "log_id varchar, sync_id bigint, sync_run_id bigint, row_id varchar, op_type varchar, "
        "status varchar, failed_reason varchar, fields varchar, batch_started_at timestamp",
        CHANGELOG),
    "sync_logs__sync_health": (
        "sync_id bigint, model_name varchar, destination varchar, destination_name varchar, "
        "num_runs bigint, num_succeeded_runs bigint, num_failed_runs bigint, "
        "run_success_rate double, duration_p50_seconds double, duration_p90_seconds double, "
        "duration_p95_seconds double, duration_max_seconds double, num_planned bigint, "
        "num_attempted bigint, num_succeeded bigint, num_failed bigint, "
        "row_success_rate double, first_run_started_at timestamp, "
        "last_run_started_at timestamp, last_sync_run_id bigint, last_run_status varchar, "
        "last_run_error varchar",
        SYNC_HEALTH),
    "sync_logs__errors": (
        "failed_reason varchar, error_category varchar, num_attempts bigint, num_rows bigint, "
        "num_syncs bigint, first_seen_at timestamp, last_seen_at timestamp, "
        "rank_by_attempts bigint, rank_by_rows bigint",
        ERRORS),
    "sync_logs__new_errors": (
        "sync_id bigint, model_name varchar, sync_run_id bigint, run_started_at timestamp, "
        "failed_reason varchar, error_category varchar, num_attempts bigint, num_rows bigint",
        NEW_ERRORS),
    "int_sync_logs__error_attempts": (
        "log_id varchar, sync_id bigint, sync_run_id bigint, row_id varchar, status varchar, "
        "failed_reason varchar, error_category varchar, attempted_at timestamp",
        ERROR_ATTEMPTS),
    "sync_logs__audience_events": (
        "sync_id bigint, model_name varchar, destination varchar, row_id varchar, "
        "event_type varchar, sync_run_id bigint, event_at timestamp",
        AUDIENCE_EVENTS),
    "sync_logs__row_operations": (
        "sync_id bigint, row_id varchar, num_attempts bigint, last_status varchar, "
        "last_attempted_at timestamp",
        ROW_OPERATIONS),
    "sync_logs__incidents": (
        "incident_id varchar, sync_id bigint, model_name varchar, destination varchar, "
        "kind varchar, severity varchar, status varchar, opened_at timestamp, "
        "last_seen_at timestamp, resolved_at timestamp, runs_affected bigint, "
        "rows_affected bigint, failed_reason varchar",
        INCIDENTS),
}

PROJECT = Path(__file__).resolve().parent / "project"
PROFILES = Path(__file__).resolve().parents[1] / "dbt" / "profiles"
SCHEMA = "report_tests"  # the profile's schema (SYNC_LOGS_SCHEMA)
MARTS_SCHEMA = f"{SCHEMA}_obs"  # where the project's `+schema: obs` puts the package


def dbt_args(work: Path) -> list[str]:
    """The dbt flags of the test project on the DuckDB target (the file: SYNC_LOGS_DUCKDB_PATH)."""
    return ["--project-dir", str(PROJECT), "--profiles-dir", str(PROFILES),
            "--target", "duckdb", "--target-path", str(work / "target")]


def create_tables(path: Path, schema: str, skip: tuple[str, ...] = ()) -> None:
    """Writes every hand-made relation (except `skip`) into `schema` of the DuckDB file."""
    connection = duckdb.connect(str(path))
    try:
        connection.execute(f"create schema if not exists {schema}")
        for name, (columns, rows) in TABLES.items():
            connection.execute(f"drop table if exists {schema}.{name}")
            if name in skip:
                continue
            connection.execute(f"create table {schema}.{name} ({columns})")
            if rows:
                marks = ", ".join("?" for _ in rows[0])
                connection.executemany(f"insert into {schema}.{name} values ({marks})", rows)
    finally:
        connection.close()


def execute(path: Path, sql: str) -> list[tuple]:
    connection = duckdb.connect(str(path))
    try:
        return connection.execute(sql).fetchall()
    finally:
        connection.close()
