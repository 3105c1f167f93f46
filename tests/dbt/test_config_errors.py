"""A bad setting fails `dbt parse`, before the build spends time, with a message that names the
setting and the fix. (sync_logs_raw_root fails the first model: tests/python/test_lake_root.py; the
library version every model: tests/python/test_library_version.py.)"""

from pathlib import Path

import pytest

from sync_logs_dev.dbt_invoke import run_dbt

TEST_PROFILES = Path(__file__).resolve().parent / "profiles"


def failure(tmp_path, args: list[str], dbt_vars: dict, **kwargs) -> str:
    """The error of a dbt invocation that must fail."""
    with pytest.raises(RuntimeError) as raised:
        run_dbt(args, target_dir=tmp_path, dbt_vars=dbt_vars, **kwargs)
    return " ".join(str(raised.value).split())


def test_an_unknown_source_mode(tmp_path):
    message = failure(tmp_path, ["parse"], {"sync_logs_source": "hightuch"})
    assert (
        "var sync_logs_source is 'hightuch', which is not a source mode: set it to one of "
        "'package' (this package's Python models over the lake at sync_logs_raw_root, on Spark or "
        "Databricks), 'tables' (canonical tables in sync_logs_tables_schema), 'hightouch' or "
        "'census' (the vendor's warehouse tables)."
    ) in message


def test_the_package_mode_on_a_warehouse_without_spark(tmp_path):
    target = "postgres"
    message = failure(tmp_path, ["parse", "--target", target], {}, profiles_dir=TEST_PROFILES)
    assert (
        "sync_logs_source 'package' (the default) builds this package's Python models, which "
        f"run only on Spark or Databricks, and target '{target}' is {target}: use a Spark "
        "target in your profile (type sparksession, spark or databricks), or set var "
        "sync_logs_source to 'tables' (canonical tables in sync_logs_tables_schema), "
        "'hightouch' or 'census'."
    ) in message


@pytest.mark.parametrize("days", [-1, "seven"])
def test_a_retention_that_is_not_a_number_of_days(tmp_path, days):
    """Checked when dbt parses the on-run-end hook that prunes, not after the build."""
    message = failure(
        tmp_path, ["parse"], {"sync_logs_prune_on_run": True, "sync_logs_retention_days": days}
    )
    shown = '"seven"' if days == "seven" else "-1"
    assert (
        f"var sync_logs_retention_days is {shown}: set it to a whole number of days >= 0, or "
        "null to keep all history"
    ) in message


def test_a_payload_limit_that_is_not_a_number(tmp_path):
    message = failure(tmp_path, ["parse"], {"sync_logs_max_payload_bytes": "64kb"})
    assert (
        'var sync_logs_max_payload_bytes is "64kb": set it to a positive whole number of bytes '
        "(e.g. 65536), or null for no limit"
    ) in message


def test_hashing_without_a_salt_in_the_package_mode(tmp_path, monkeypatch):
    monkeypatch.delenv("SYNC_LOGS_PAYLOAD_HASH_SALT", raising=False)
    message = failure(tmp_path, ["parse"], {"sync_logs_payload_fields_to_hash": ["email"]})
    assert (
        "sync_logs_payload_fields_to_hash is set but the salt is empty: set the environment "
        "variable SYNC_LOGS_PAYLOAD_HASH_SALT (a secret string, the same on every build) for "
        "the process that runs dbt"
    ) in message
