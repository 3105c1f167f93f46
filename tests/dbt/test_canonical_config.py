"""`--full-refresh` protects the append-only history unless sync_logs_allow_history_rebuild."""

import json

from sync_logs_dev.dbt_invoke import run_dbt

# The manifest keeps the inspected record files of every run ever loaded (record_files view).
HISTORY = {
    "int_sync_logs__run_manifest",
    "sync_changelog",
    "sync_runs",
}


def full_refresh_configs(target_dir, dbt_vars=None) -> dict:
    run_dbt(["parse"], target_dir=target_dir, dbt_vars=dbt_vars)
    manifest = json.loads((target_dir / "dbt" / "manifest.json").read_text())
    return {
        node["name"]: node["config"].get("full_refresh")
        for node in manifest["nodes"].values()
        if node["resource_type"] == "model"
        and node["original_file_path"].startswith("models/canonical/")
    }


def test_history_models_are_not_full_refreshed_by_default(tmp_path):
    configs = full_refresh_configs(tmp_path)
    assert {name for name, value in configs.items() if value is False} == HISTORY


def test_the_var_lets_full_refresh_rebuild_history(tmp_path):
    configs = full_refresh_configs(tmp_path, {"sync_logs_allow_history_rebuild": True})
    assert all(configs[name] is None for name in HISTORY)
