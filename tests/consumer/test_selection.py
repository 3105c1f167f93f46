"""Node selection as a user of the installed package types it: `dbt ls` in the consumer
project with the selectors the README lists, against the sets written out by hand."""

import pytest

from sync_logs_dev.dbt_invoke import run_dbt

CANONICAL = {
    "sync_changelog", "sync_snapshot", "sync_runs", "sync_log", "source_objects",
    "destinations", "destination_objects", "sync_logs_quarantine",
    "int_sync_logs__lake_files", "int_sync_logs__run_manifest", "int_sync_logs__runs_to_load",
    "int_sync_logs__build_plan", "int_sync_logs__objects",
    "int_sync_logs__record_files", "int_sync_logs__snapshot",
    "int_sync_logs__facts",
}
STAGING = {
    "stg_sync_logs__sync_changelog", "stg_sync_logs__sync_runs", "stg_sync_logs__sync_snapshot",
    "stg_sync_logs__source_objects", "stg_sync_logs__destinations",
    "stg_sync_logs__destination_objects",
}
INTERMEDIATE = {
    "int_sync_logs__attempts", "int_sync_logs__row_runs", "int_sync_logs__membership_transitions",
    "int_sync_logs__error_attempts", "int_sync_logs__error_categories", "int_sync_logs__syncs",
    "int_sync_logs__run_errors", "int_sync_logs__error_rows", "int_sync_logs__daily_attempts",
    "int_sync_logs__run_fingerprints", "int_sync_logs__run_error_classes",
}
MARTS = {
    "sync_logs__errors", "sync_logs__errors_by_sync", "sync_logs__errors_by_destination",
    "sync_logs__new_errors", "sync_logs__error_trend_daily", "sync_logs__audience_events",
    "sync_logs__membership_history", "sync_logs__current_members", "sync_logs__field_diffs",
    "sync_logs__row_lifecycle", "sync_logs__flapping_rows", "sync_logs__row_operations",
    "sync_logs__sync_health", "sync_logs__run_anomalies", "sync_logs__incidents",
}
SEEDS = {"sync_logs_error_categories"}

# Everything sync_logs__errors is built from: the per-run error aggregate, its attempts and the
# runs' fingerprints (which read the snapshot too), the categories, the staged changelog, runs,
# snapshot and metadata, and the canonical steps behind those (not the sync log, the quarantine,
# nor the membership steps).
ERRORS_ANCESTORS = {
    "sync_logs__errors",
    "int_sync_logs__error_rows", "int_sync_logs__attempts", "int_sync_logs__error_categories",
    "int_sync_logs__run_fingerprints",
    "sync_logs_error_categories",
    "stg_sync_logs__sync_changelog", "stg_sync_logs__sync_runs", "stg_sync_logs__source_objects",
    "stg_sync_logs__destinations", "stg_sync_logs__destination_objects",
    "stg_sync_logs__sync_snapshot",
    "sync_changelog", "sync_runs", "sync_snapshot", "source_objects", "destinations",
    "destination_objects", "int_sync_logs__run_manifest", "int_sync_logs__runs_to_load",
    "int_sync_logs__build_plan", "int_sync_logs__objects",
    "int_sync_logs__record_files", "int_sync_logs__snapshot",
    "int_sync_logs__facts",
}


@pytest.fixture(scope="module")
def ls(consumer_deps, tmp_path_factory):
    work = tmp_path_factory.mktemp("consumer_ls")

    def run(*selector: str, dbt_vars: dict | None = None) -> set[str]:
        result = run_dbt(
            ["ls", *selector, "--resource-type", "model", "--resource-type", "seed",
             "--output", "name", "--quiet"],
            project_dir=consumer_deps, target_dir=work, dbt_vars=dbt_vars,
        )
        return set(result.result)

    return run


def test_folder_selectors(ls):
    assert ls("-s", "sync_logs.staging") == STAGING
    assert ls("-s", "sync_logs.intermediate") == INTERMEDIATE
    assert ls("-s", "sync_logs.marts") == MARTS
    assert ls("-s", "sync_logs.canonical") == CANONICAL


def test_tag_selectors(ls):
    assert ls("-s", "tag:sync_logs_marts") == MARTS
    assert ls("-s", "tag:sync_logs_staging") == STAGING
    assert ls("-s", "tag:sync_logs_canonical") == CANONICAL
    # The whole package, seed included, and nothing of the consumer's own.
    everything = CANONICAL | STAGING | INTERMEDIATE | MARTS | SEEDS
    assert ls("-s", "tag:sync_logs") == everything
    assert ls("-s", "package:sync_logs") == everything


def test_graph_selector_builds_a_mart_from_the_lake_up(ls):
    assert ls("-s", "+sync_logs__errors") == ERRORS_ANCESTORS
    # and a consumer model that reads the mart brings the same ancestors
    assert ls("-s", "+consumer_error_digest") == ERRORS_ANCESTORS | {"consumer_error_digest"}


def test_vars_switch_groups_off(ls):
    assert ls("-s", "tag:sync_logs_marts", dbt_vars={"sync_logs_field_diffs_enabled": False}) == (
        MARTS - {"sync_logs__field_diffs"})
    # Reading canonical tables loaded elsewhere: the Python models leave the build, though
    # the package's dbt_project.yml is rendered without the installing project's vars.
    assert ls("-s", "package:sync_logs", dbt_vars={"sync_logs_source": "tables"}) == (
        STAGING | INTERMEDIATE | MARTS | SEEDS)


def test_consumer_project_is_installed_from_this_checkout(consumer_deps):
    link = consumer_deps / "dbt_packages" / "sync_logs"
    assert (link / "dbt_project.yml").resolve() == consumer_deps.parents[1] / "dbt_project.yml"
