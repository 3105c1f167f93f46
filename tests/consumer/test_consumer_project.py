"""sync_logs installed into another dbt project and configured from that project's files.

tests/consumer_project/dbt_project.yml overrides the package's schema (`+schema`), the
materialization of two folders, and two vars; its own models select from a package mart
and from the package's changelog. Expected values come from the lake generator's summary
and from reading the lake's parquet files with pyarrow, not from the package."""

import re
from collections import Counter

import pyarrow.parquet as pq
from consumer_harness import PACKAGE_SCHEMA, SCHEMA

# As the consumer's dbt_project.yml writes them.
CUSTOM_PATTERN = "invalid email|email address"
CUSTOM_CATEGORY = "consumer_bad_email"

CANONICAL = {
    "sync_changelog", "sync_snapshot", "sync_runs", "sync_log", "source_objects",
    "destinations", "destination_objects", "sync_logs_quarantine",
}
STAGING = {
    "stg_sync_logs__sync_changelog", "stg_sync_logs__sync_runs", "stg_sync_logs__sync_snapshot",
    "stg_sync_logs__source_objects", "stg_sync_logs__destinations",
    "stg_sync_logs__destination_objects",
}
MARTS = {
    "sync_logs__errors", "sync_logs__errors_by_sync", "sync_logs__errors_by_destination",
    "sync_logs__new_errors", "sync_logs__error_trend_daily", "sync_logs__audience_events",
    "sync_logs__membership_history", "sync_logs__current_members", "sync_logs__field_diffs",
    "sync_logs__row_lifecycle", "sync_logs__flapping_rows", "sync_logs__row_operations",
    "sync_logs__sync_health",
}


def table_types(spark, schema: str) -> dict[str, str]:
    """The schema's own relations (listTables adds the session's temporary views)."""
    return {t.name: t.tableType for t in spark.catalog.listTables(schema) if not t.isTemporary}


def rejected_messages(lake) -> set[str]:
    """Distinct status_message of rejected records, read from the lake's parquet files."""
    messages = set()
    for path in (lake / "sync_tracking_datasets").rglob("*.parquet"):
        table = pq.read_table(path, columns=["status", "status_message"]).to_pylist()
        messages |= {r["status_message"] for r in table if r["status"] == "rejected"}
    return messages


def test_package_relations_land_in_the_overridden_schema(consumer_build):
    spark = consumer_build.spark
    package = table_types(spark, PACKAGE_SCHEMA)
    expected = CANONICAL | STAGING | MARTS
    assert expected <= set(package), sorted(expected - set(package))
    own = table_types(spark, SCHEMA)
    # The consumer's own models stay in the target schema, the package's do not.
    assert {"consumer_error_digest", "consumer_sync_activity"} <= set(own)
    assert not (CANONICAL | STAGING | MARTS) & set(own)


def test_folder_materializations_follow_the_consumer(consumer_build):
    types = table_types(consumer_build.spark, PACKAGE_SCHEMA)
    # staging: view in the package, table here; marts: table in the package, view here.
    assert {name: types[name] for name in STAGING} == dict.fromkeys(STAGING, "MANAGED")
    assert {name: types[name] for name in MARTS} == dict.fromkeys(MARTS, "VIEW")
    # The folders the consumer leaves alone keep the package's own materializations.
    configured = {
        node["name"]: node["config"]["materialized"]
        for node in consumer_build.manifest()["nodes"].values()
        if node["package_name"] == "sync_logs" and node["resource_type"] == "model"
        and node["fqn"][1] in ("canonical", "intermediate")
    }
    assert configured["int_sync_logs__attempts"] == "view"
    assert configured["int_sync_logs__row_runs"] == "incremental"
    expected = {name: "VIEW" if how == "view" else "MANAGED" for name, how in configured.items()}
    assert {name: types[name] for name in configured} == expected


def test_consumer_error_category_var_reaches_the_package_marts(consumer_build):
    errors = consumer_build.rows(
        "select failed_reason, error_category, num_attempts"
        f" from {PACKAGE_SCHEMA}.sync_logs__errors"
    )
    custom = re.compile(CUSTOM_PATTERN, re.IGNORECASE)
    expected = {m for m in rejected_messages(consumer_build.lake.out_dir) if custom.search(m)}
    assert expected, "the generated lake should hold invalid-email rejections"
    categorised = {r["failed_reason"] for r in errors if r["error_category"] == CUSTOM_CATEGORY}
    assert categorised == expected
    # Messages the pattern does not match keep the package's categories.
    others = {r["error_category"] for r in errors if not custom.search(r["failed_reason"])}
    assert others and CUSTOM_CATEGORY not in others

    digest = {r["error_category"]: r for r in consumer_build.rows(
        f"select * from {SCHEMA}.consumer_error_digest")}
    assert digest[CUSTOM_CATEGORY]["num_messages"] == len(expected)
    assert digest[CUSTOM_CATEGORY]["num_attempts"] == sum(
        r["num_attempts"] for r in errors if r["error_category"] == CUSTOM_CATEGORY)


def test_package_scoped_var_is_compiled_into_the_mart(consumer_build):
    node = consumer_build.manifest()["nodes"]["model.sync_logs.sync_logs__flapping_rows"]
    code = node["compiled_code"]
    assert re.search(r"num_times_removed\s*>=\s*1\b", code), code[-400:]


def test_consumer_model_reads_every_changelog_row(consumer_build):
    lake = consumer_build.lake
    rows = consumer_build.rows(f"select * from {SCHEMA}.consumer_sync_activity")
    # Every record read, exact re-deliveries folded once each: the generator's own counts.
    assert sum(r["num_attempts"] for r in rows) == lake.records - lake.redelivered
    written, runs_with_records, attempts = Counter(), Counter(), Counter()
    for run in lake.manifest["runs"]:
        written[run["sync_id"]] += run["records"] - run["redelivered"]
        runs_with_records[run["sync_id"]] += bool(run["records"])
    for r in rows:
        attempts[r["sync_id"]] += r["num_attempts"]
    assert attempts == +written
    assert {r["status"] for r in rows} >= {"succeeded", "failed"}
    assert all(1 <= r["num_runs"] <= runs_with_records[r["sync_id"]] for r in rows)
