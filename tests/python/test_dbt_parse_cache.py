"""A new target folder starts from the saved parse of the same project and vars, and other
vars still get their own parse."""

import json

from sync_logs_dev.dbt_invoke import run_dbt
from sync_logs_dev.dbt_parse_cache import CACHE_ENV


def parse(target_dir, raw_root):
    run_dbt(["parse"], target_dir=target_dir, dbt_vars={"sync_logs_raw_root": raw_root})
    log = (target_dir / "logs" / "dbt.log").read_text()
    manifest = json.loads((target_dir / "dbt" / "manifest.json").read_text())
    run_manifest = manifest["nodes"]["model.sync_logs.int_sync_logs__run_manifest"]
    return log, run_manifest["config"]["raw_root"]


def test_saved_parse_is_reused_only_for_the_same_vars(tmp_path, monkeypatch):
    monkeypatch.setenv(CACHE_ENV, str(tmp_path / "cache"))

    first_log, _ = parse(tmp_path / "first", "lake_a")
    same_log, same_root = parse(tmp_path / "same_vars", "lake_a")
    other_log, other_root = parse(tmp_path / "other_vars", "lake_b")

    assert "saved manifest not found" in first_log
    assert "Partial parsing enabled" in same_log
    assert same_root == "lake_a"
    assert "saved manifest not found" in other_log  # no entry for these vars
    assert other_root == "lake_b"
