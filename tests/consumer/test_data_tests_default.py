"""Which of the package's data tests a user's build runs (issue 36): by default only the tests
of assumptions about the user's lake; with var sync_logs_all_data_tests every one, as the
package's CI runs them. The package's unit tests (checks of its own SQL) run only with var
sync_logs_unit_tests. Read from the consumer project's parsed manifest."""

import json
from pathlib import Path

import pytest
import yaml

from sync_logs_dev.dbt_invoke import run_dbt

MODELS = Path(__file__).resolve().parents[2] / "models"
# The relationships of each run's ids (metadata.json) to the lake's fact files, and freshness.
LAKE_TESTS = {
    "relationships_sync_runs_destination_id__id__ref_destinations_",
    "relationships_sync_runs_destination_object_id__id__ref_destination_objects_",
    "relationships_sync_runs_source_object_id__id__ref_source_objects_",
    "sync_logs_sync_logs_fresh_sync_logs__run_anomalies_",
}
# Source mode tables: the staging tests of the user's tables, and freshness (the canonical
# models, sync_runs among them, are not built).
TABLES_MODE_TESTS = {
    "unique_stg_sync_logs__sync_changelog_log_id",
    "not_null_stg_sync_logs__sync_changelog_log_id",
    "not_null_stg_sync_logs__sync_changelog_sync_id",
    "not_null_stg_sync_logs__sync_changelog_sync_run_id",
    "accepted_values_stg_sync_logs__sync_changelog_op_type__added__changed__removed",
    "not_null_stg_sync_logs__sync_changelog_status",
    "accepted_values_stg_sync_logs__sync_changelog_status__succeeded__failed__invalid__aborted",
    "not_null_stg_sync_logs__sync_runs_sync_id",
    "not_null_stg_sync_logs__sync_runs_sync_run_id",
    "sync_logs_sync_logs_unique_combination_stg_sync_logs__sync_runs_sync_id__sync_run_id",
    "not_null_stg_sync_logs__sync_snapshot_sync_id",
    "not_null_stg_sync_logs__sync_snapshot_row_id",
    "sync_logs_sync_logs_unique_combination_stg_sync_logs__sync_snapshot_sync_id__row_id",
    "unique_stg_sync_logs__source_objects_source_object_id",
    "not_null_stg_sync_logs__source_objects_source_object_id",
    "unique_stg_sync_logs__destinations_destination_id",
    "not_null_stg_sync_logs__destinations_destination_id",
    "unique_stg_sync_logs__destination_objects_destination_object_id",
    "not_null_stg_sync_logs__destination_objects_destination_object_id",
    "sync_logs_sync_logs_fresh_sync_logs__run_anomalies_",
}


@pytest.fixture(scope="module")
def package_tests(consumer_deps, tmp_path_factory):
    """(enabled, disabled) names of the package's data tests (or unit tests) under the given
    vars."""

    def parse(dbt_vars: dict, resource_type: str = "test") -> tuple[set[str], set[str]]:
        work = tmp_path_factory.mktemp("data_tests_parse")
        run_dbt(["parse"], project_dir=consumer_deps, target_dir=work,
                dbt_vars={"sync_logs_raw_root": "lake", **dbt_vars})
        manifest = json.loads((work / "dbt" / "manifest.json").read_text())

        def ours_only(nodes):
            return [node for node in nodes if node["resource_type"] == resource_type
                    and node["package_name"] == "sync_logs"]

        ours = ours_only([*manifest["nodes"].values(), *manifest["unit_tests"].values()])
        ours += ours_only(node for nodes in manifest["disabled"].values() for node in nodes)
        # a test of a disabled model stays in the nodes, disabled
        enabled = {node["name"] for node in ours if node["config"]["enabled"]}
        return enabled, {node["name"] for node in ours} - enabled

    return parse


def test_a_users_build_runs_the_lake_tests_only(package_tests):
    enabled, disabled = package_tests({})
    assert enabled == LAKE_TESTS
    # among those left to the package's CI: a key the library computes, the reconciliation
    assert {"unique_sync_changelog_log_id", "sync_logs_reconciliation"} <= disabled


def test_source_mode_tables_runs_the_tests_of_the_users_tables(package_tests):
    enabled, _ = package_tests({"sync_logs_source": "tables"})
    assert enabled == TABLES_MODE_TESTS


def test_one_var_turns_every_test_on(package_tests):
    enabled_default, disabled_default = package_tests({})
    enabled, disabled = package_tests({"sync_logs_all_data_tests": True})
    assert disabled == set()
    assert enabled == enabled_default | disabled_default


def test_a_users_build_runs_no_unit_test_of_the_package(package_tests):
    written = {test["name"] for path in MODELS.glob("*/_*.yml")
               for test in (yaml.safe_load(path.read_text()) or {}).get("unit_tests", [])}
    assert package_tests({}, "unit_test") == (set(), written)


def test_one_var_turns_the_unit_tests_on(package_tests):
    _, disabled_default = package_tests({}, "unit_test")
    enabled, disabled = package_tests({"sync_logs_unit_tests": True}, "unit_test")
    assert (enabled, disabled) == (disabled_default, set())
