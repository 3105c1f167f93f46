"""The marts on three real engines over one fixture: embedded Spark, PostgreSQL 15, DuckDB.

Each build runs the package's data tests and unit tests (`dbt build`; the other modules leave
the unit tests out, as these builds run them on every engine); then every mart must
hold the same rows on all three engines, and the rows written out below by hand."""

import pytest
from marts_harness import MARTS, Build


@pytest.fixture(scope="module")
def builds(spark, tmp_path_factory):
    done = {}
    try:
        for engine in ("duckdb", "postgres", "spark"):
            work = tmp_path_factory.mktemp(f"marts_{engine}")
            done[engine] = Build(engine, work, spark=spark).build(unit_tests=True)
        yield done
    finally:
        for build in done.values():
            build.drop()


def test_every_mart_has_the_same_rows_on_every_engine(builds):
    for mart in MARTS:
        reference = builds["postgres"].rows(mart)
        assert reference, f"{mart} is empty on postgres: the fixture should exercise it"
        for engine in ("duckdb", "spark"):
            assert builds[engine].rows(mart) == reference, f"{mart} differs on {engine}"


def pick(rows, *columns):
    return sorted(tuple(row[c] for c in columns) for row in rows)


@pytest.mark.parametrize("engine", ["postgres", "duckdb", "spark"])
def test_most_common_errors(builds, engine):
    rows = builds[engine].rows("sync_logs__errors")
    assert pick(rows, "failed_reason", "error_category", "num_attempts", "num_rows",
                "num_syncs", "rank_by_attempts", "rank_by_rows") == sorted([
        ("Rate limit exceeded, retry later", "rate_limit", 2, 2, 2, 1, 1),
        ("Unauthorized: invalid API key", "auth", 2, 1, 1, 1, 2),
        ("duplicate identifier", "duplicate", 2, 1, 1, 1, 2),
        ("Invalid email address", "validation", 1, 1, 1, 4, 2),
        ("Contact not found", "not_found", 1, 1, 1, 4, 2),
        ("Request timed out after 30s", "timeout", 1, 1, 1, 4, 2),
        ("Destination API unavailable", "other", 1, 1, 1, 4, 2),
        # no identifier, so no row to count
        ("null identifier", "validation", 1, 0, 1, 4, 8),
    ])


def test_new_errors_are_those_first_seen_in_the_latest_run(builds):
    rows = builds["postgres"].rows("sync_logs__new_errors")
    assert pick(rows, "sync_id", "sync_run_id", "failed_reason", "num_attempts") == sorted([
        (101, 1005, "Contact not found", 1),
        (101, 1005, "Request timed out after 30s", 1),
        (101, 1005, "Destination API unavailable", 1),
        # sync 202's runs started in the order 2003, 2001, 2002: 2002 is its latest
        (202, 2002, "Rate limit exceeded, retry later", 1),
    ])


def test_membership_intervals_follow_run_time_not_run_id(builds):
    rows = builds["postgres"].rows("sync_logs__membership_history")
    assert pick(rows, "sync_id", "row_id", "valid_from", "valid_to", "entered_sync_run_id",
                "exited_sync_run_id", "is_current") == sorted([
        (101, "u1", "2026-10-01 06:01:00", "2026-10-03 06:01:00", 1001, 1003, False),
        (101, "u1", "2026-10-04 06:01:00", "2026-10-05 06:01:00", 1004, 1005, False),
        (101, "u2", "2026-10-02 06:01:00", None, 1002, None, True),
        (101, "u3", "2026-10-01 06:01:00", None, 1001, None, True),
        # its removal failed: still in the destination
        (101, "u4", "2026-10-01 06:01:00", None, 1001, None, True),
        (202, "c1", "2026-10-01 07:01:00", None, 2003, None, True),
        (202, "c2", "2026-10-03 07:01:00", None, 2002, None, True),
        (202, "c3", "2026-10-02 07:01:00", "2026-10-03 07:01:00", 2001, 2002, False),
    ])
    events = builds["postgres"].rows("sync_logs__audience_events")
    assert pick([e for e in events if e["sync_id"] == 202], "row_id", "event_number",
                "event_type", "sync_run_id") == sorted([
        ("c1", 1, "entered", 2003),
        ("c2", 1, "entered", 2002),
        ("c3", 1, "entered", 2001),
        ("c3", 2, "exited", 2002),
    ])


def test_current_members(builds):
    rows = builds["postgres"].rows("sync_logs__current_members")
    assert pick(rows, "sync_id", "row_id", "latest_status", "latest_failed_reason") == sorted([
        (101, "u2", "succeeded", None),
        (101, "u3", "succeeded", None),
        (101, "u4", "failed", "Contact not found"),
        (202, "c1", "failed", "Rate limit exceeded, retry later"),
        (202, "c2", "succeeded", None),
    ])


def test_field_diffs_include_nulls_and_appearing_fields(builds):
    rows = builds["postgres"].rows("sync_logs__field_diffs")
    assert pick(rows, "sync_id", "row_id", "sync_run_id", "previous_sync_run_id", "field_name",
                "change_type", "old_value", "new_value") == sorted([
        (101, "u1", 1002, 1001, "plan", "changed", "free", "pro"),
        (101, "u1", 1004, 1002, "seats", "changed", "1", "2"),
        (101, "u2", 1003, 1002, "email", "changed", "u2@x.com", "u2-at-x.com"),
        (101, "u2", 1004, 1003, "email", "changed", "u2-at-x.com", "u2@x.com"),
        (101, "u2", 1004, 1003, "plan", "changed", "free", "team"),
        (101, "u3", 1002, 1001, "score", "changed", "1", "2"),
        (101, "u3", 1004, 1003, "score", "changed", "2", "3"),
        (101, "u3", 1005, 1004, "score", "changed", "3", "4"),
        (202, "c1", 2001, 2003, "note", "appeared", None, "x"),
        (202, "c1", 2001, 2003, "score", "changed", "0.9", "0.7"),
        (202, "c1", 2002, 2001, "note", "disappeared", "x", None),
        (202, "c1", 2002, 2001, "tier", "changed", "gold", None),
    ])


def test_sync_health(builds):
    rows = builds["postgres"].rows("sync_logs__sync_health")
    # durations 300, 240, 600, 180, 1200 s (sync 101) and 300, 120, unfinished (sync 202);
    # percentiles interpolate between the sorted durations
    assert pick(rows, "sync_id", "num_runs", "num_succeeded_runs", "num_failed_runs",
                "run_success_rate", "duration_p50_seconds", "duration_p90_seconds",
                "duration_p95_seconds", "duration_max_seconds", "num_planned", "num_attempted",
                "num_succeeded", "num_failed", "last_sync_run_id", "last_run_status") == sorted([
        (101, 5, 4, 1, 0.8, 300.0, 960.0, 1080.0, 1200.0, 18, 17, 13, 4, 1005, "failed"),
        (202, 3, 2, 0, 1.0, 210.0, 282.0, 291.0, 300.0, 8, 8, 5, 3, 2002, None),
    ])


def test_flapping_rows(builds):
    rows = builds["postgres"].rows("sync_logs__flapping_rows")
    assert pick(rows, "sync_id", "row_id", "num_entries", "num_add_remove_cycles",
                "num_changes", "num_runs") == sorted([
        (101, "u1", 2, 2, 1, 5),
        # four changes planned, one a retry of an unchanged payload
        (101, "u3", 1, 0, 3, 5),
    ])


def test_row_operations_and_lifecycle(builds):
    operations = builds["postgres"].rows("sync_logs__row_operations")
    assert pick(operations, "sync_id", "row_id", "num_attempts", "num_succeeded", "num_failed",
                "num_invalid", "num_aborted", "last_status") == sorted([
        (101, "u1", 5, 5, 0, 0, 0, "succeeded"),
        (101, "u2", 4, 2, 2, 0, 0, "succeeded"),
        (101, "u3", 5, 5, 0, 0, 0, "succeeded"),
        (101, "u4", 2, 1, 1, 0, 0, "failed"),
        (101, "u5", 2, 0, 0, 2, 0, "invalid"),
        (101, "u6", 1, 0, 0, 0, 1, "aborted"),
        (101, "u7", 1, 0, 1, 0, 0, "failed"),
        (202, "c1", 3, 2, 1, 0, 0, "failed"),
        (202, "c2", 3, 1, 2, 0, 0, "succeeded"),
        (202, "c3", 2, 2, 0, 0, 0, "succeeded"),
    ])
    lifecycle = builds["postgres"].rows("sync_logs__row_lifecycle")
    assert pick(lifecycle, "sync_id", "row_id", "first_added_at", "last_updated_at",
                "last_removed_at", "is_in_destination") == sorted([
        (101, "u1", "2026-10-01 06:01:00", "2026-10-04 06:01:00", "2026-10-05 06:01:00", False),
        (101, "u2", "2026-10-02 06:01:00", "2026-10-04 06:01:00", None, True),
        (101, "u3", "2026-10-01 06:01:00", "2026-10-05 06:01:00", None, True),
        (101, "u4", "2026-10-01 06:01:00", "2026-10-01 06:01:00", None, True),
        (101, "u6", None, None, None, False),
        (101, "u7", None, None, None, False),
        (202, "c1", "2026-10-01 07:01:00", "2026-10-02 07:01:00", None, True),
        (202, "c2", "2026-10-03 07:01:00", "2026-10-03 07:01:00", None, True),
        (202, "c3", "2026-10-02 07:01:00", "2026-10-02 07:01:00", "2026-10-03 07:01:00", False),
    ])


@pytest.mark.parametrize("engine", ["postgres", "duckdb", "spark"])
def test_members_at_macro(builds, engine):
    noon_oct_3 = builds[engine].rows("members_on_oct_3")
    assert pick(noon_oct_3, "sync_id", "row_id") == sorted([
        # u1 left at 06:01 that morning, c3 at 07:01; c2 entered at 07:01
        (101, "u2"), (101, "u3"), (101, "u4"), (202, "c1"), (202, "c2"),
    ])
    churn_oct_2 = builds[engine].rows("churn_risk_members_on_oct_2")
    assert pick(churn_oct_2, "model_name", "row_id") == [("Churn risk", "c1"), ("Churn risk", "c3")]


@pytest.mark.parametrize("engine", ["postgres", "duckdb", "spark"])
def test_exclude_failed_rows_macro(builds, engine):
    # latest attempt in sync 101 failed: u4 (removal) and u7 (add); u8 was never synced
    assert pick(builds[engine].rows("users_not_failing"), "user_id") == [
        ("u1",), ("u2",), ("u3",), ("u5",), ("u6",), ("u8",)]
    # u2 failed once before succeeding
    assert pick(builds[engine].rows("users_never_failed"), "user_id") == [
        ("u1",), ("u3",), ("u5",), ("u6",), ("u8",)]


MONITORING = ["sync_logs__run_anomalies", "sync_logs__incidents", "error_taxonomy_results"]


def test_monitoring_marts_have_the_same_rows_on_every_engine(builds):
    for relation in MONITORING:
        reference = builds["postgres"].rows(relation)
        assert reference, f"{relation} is empty on postgres: the fixture should exercise it"
        for engine in ("duckdb", "spark"):
            assert builds[engine].rows(relation) == reference, f"{relation} differs on {engine}"


@pytest.mark.parametrize("engine", ["postgres", "duckdb", "spark"])
def test_error_taxonomy_of_real_api_messages(builds, engine):
    cases = builds[engine].rows("error_taxonomy_cases")
    apis = {"salesforce", "hubspot", "braze", "iterable", "google_ads", "meta", "zendesk"}
    assert all(sum(c["api"] == api for c in cases) >= 3 for api in apis)
    results = {r["failed_reason"]: r for r in builds[engine].rows("error_taxonomy_results")}
    wrong = []
    for case in cases:
        got = results[case["message"]]
        expected_status = case["expected_http_status"]
        if (got["error_class"] != case["expected_class"]
                or got["http_status"] != expected_status
                or (case["expected_template"]
                    and got["message_template"] != case["expected_template"])):
            wrong.append((case["message"], case["expected_class"], expected_status,
                          got["error_class"], got["http_status"], got["message_template"]))
    assert not wrong
    retryable = {r["error_class"]: r["is_retryable"] for r in results.values()}
    assert retryable == {
        "rate_limit": True, "timeout": True, "destination_server_error": True,
        "authentication": False, "permission": False, "validation": False, "not_found": False,
        "duplicate": False, "unknown": None,
    }


def test_incidents_of_the_fixture(builds):
    # Worked out from the fixture's runs (tests/dbt/project/seeds/tables), with the default
    # thresholds and the reference time 2026-10-09 00:00 of the integration project.
    rows = builds["postgres"].rows("sync_logs__incidents")
    assert pick(rows, "sync_id", "kind", "error_class", "severity", "status",
                "opened_sync_run_id", "runs_affected", "rows_affected", "resolved_at",
                "failed_reason") == sorted([
        # run 1005 failed: 5 planned, 2 succeeded
        (101, "run_failed", None, "critical", "open", 1005, 1, 3, None,
         "Destination API unavailable"),
        # failed / attempted: 1/4 (critical at 0.25), 0/3, 1/3, 0/3, 2/4
        (101, "failed_records", None, "critical", "resolved", 1001, 1, 1, "2026-10-02 06:04:00",
         "Rate limit exceeded, retry later"),
        (101, "failed_records", None, "critical", "resolved", 1003, 1, 1, "2026-10-04 06:03:00",
         "duplicate identifier"),
        (101, "failed_records", None, "critical", "open", 1005, 1, 2, None, "Contact not found"),
        # new_error_class (sync_logs_anomaly_min_baseline_runs 3, _baseline_runs 10): a class
        # opens one only at a run with 3 or more earlier runs and absent from all of them.
        # Sync 101's classes: rate_limit (1001), validation (1002, 1003), duplicate (1003)
        # come at its first three runs (0, 1, 2 earlier runs): none. Run 1005 has 4 earlier
        # runs (1001-1004), none with not_found, timeout or destination_server_error: three
        # incidents, open (no later run).
        (101, "new_error_class", "not_found", "warning", "open", 1005, 1, 1, None,
         "Contact not found"),
        (101, "new_error_class", "timeout", "warning", "open", 1005, 1, 1, None,
         "Request timed out after 30s"),
        (101, "new_error_class", "destination_server_error", "warning", "open", 1005, 1, 1, None,
         "Destination API unavailable"),
        # 1200 s against the p95 555 s of 300, 240, 600, 180
        (101, "slow_run", None, "warning", "open", 1005, 1, None, None, None),
        # daily runs; none since Oct 5 06:00, overdue from Oct 8 06:00
        (101, "stale", None, "warning", "open", 1005, 0, None, None, None),
        # 1/2, 1/3, 1/3 in start order 2003, 2001, 2002
        (202, "failed_records", None, "critical", "open", 2003, 3, 3, None,
         "Unauthorized: invalid API key"),
        # no new_error_class for sync 202: authentication (2003, 2001) and rate_limit (2002)
        # come at its only three runs, with 0, 1 and 2 earlier runs
    ])
    stale = [r for r in rows if r["kind"] == "stale"][0]
    assert (stale["opened_at"], stale["last_seen_at"]) == (
        "2026-10-08 06:00:00", "2026-10-09 00:00:00")


def test_incident_ids_hash_sync_kind_class_and_opening_run(builds):
    import hashlib

    for row in builds["postgres"].rows("sync_logs__incidents"):
        key = "|".join([str(int(row["sync_id"])), row["kind"], row["error_class"] or "",
                        str(int(row["opened_sync_run_id"]))])
        assert row["incident_id"] == hashlib.md5(key.encode()).hexdigest()
