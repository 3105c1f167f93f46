"""Runs dbt in this process, so that dbt's Python models share the caller's SparkSession.

Repository tooling (demo, tests): the dbt project is an argument; its default is the checkout
(`sync_logs_dev.checkout.checkout_dir()`, a clear error when there is none)."""

import json
import os
from collections.abc import Mapping
from pathlib import Path

from dbt.cli.main import dbtRunner, dbtRunnerResult

from sync_logs_dev.checkout import checkout_dir
from sync_logs_dev.dbt_parse_cache import parse_key, saved_parse_reused
from sync_logs_dev.dbt_subprocess import profiles_dir as example_profiles


def example_profiles_dir(target_dir: Path, project_dir: Path | None = None) -> Path:
    """`target_dir`/profiles holding the project's profiles.example.yml as profiles.yml
    (project_dir: default the checkout)."""
    return example_profiles(target_dir / "profiles", project_dir)


profiles_dir = example_profiles_dir  # the name other modules import


def run_dbt(
    args: list[str],
    *,
    project_dir: Path | None = None,
    target_dir: Path | None = None,
    dbt_vars: Mapping[str, object] | None = None,
    env: Mapping[str, str] | None = None,
    profiles_dir: Path | None = None,
) -> dbtRunnerResult:
    """`dbt <args>` against the local target (or a given profiles folder, e.g. for PostgreSQL
    or DuckDB); raises when dbt reports a failure. `project_dir`: the dbt project (default
    the checkout); `target_dir`: where target/, logs and profiles go (default its target/);
    without `profiles_dir`, the checkout's profiles.example.yml."""
    project_dir = (project_dir or checkout_dir()).resolve()
    target_dir = (target_dir or project_dir / "target").resolve()
    profiles_dir = profiles_dir or example_profiles_dir(target_dir)
    vars_json = json.dumps(dict(dbt_vars), sort_keys=True) if dbt_vars else ""
    command = [
        *args,
        "--project-dir", str(project_dir),
        "--profiles-dir", str(profiles_dir),
        "--target-path", str(target_dir / "dbt"),
        "--log-path", str(target_dir / "logs"),
    ]
    if dbt_vars:
        command += ["--vars", vars_json]
    saved = {key: os.environ.get(key) for key in (env or {})}
    os.environ.update(env or {})
    try:
        key = parse_key(project_dir, profiles_dir, args, vars_json)
        with saved_parse_reused(target_dir / "dbt", key):
            result = dbtRunner().invoke(command)
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
    if not result.success:
        reason = result.exception or "see the dbt log"
        raise RuntimeError(f"dbt {' '.join(args)} failed: {reason}")
    return result
