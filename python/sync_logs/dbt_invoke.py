"""Runs dbt in this process, so that dbt's Python models share the caller's SparkSession."""

import json
import os
import shutil
from collections.abc import Mapping
from pathlib import Path

from dbt.cli.main import dbtRunner, dbtRunnerResult

PROJECT_DIR = Path(__file__).resolve().parents[2]


def example_profiles_dir(target_dir: Path) -> Path:
    """A profiles folder holding profiles.example.yml as profiles.yml."""
    folder = target_dir / "profiles"
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(PROJECT_DIR / "profiles.example.yml", folder / "profiles.yml")
    return folder


profiles_dir = example_profiles_dir  # the name other modules import


def run_dbt(
    args: list[str],
    *,
    project_dir: Path = PROJECT_DIR,
    target_dir: Path | None = None,
    dbt_vars: Mapping[str, object] | None = None,
    env: Mapping[str, str] | None = None,
    profiles_dir: Path | None = None,
) -> dbtRunnerResult:
    """`dbt <args>` against the local target (or a given profiles folder, e.g. for PostgreSQL
    or DuckDB); raises when dbt reports a failure."""
    target_dir = (target_dir or project_dir / "target").resolve()
    command = [
        *args,
        "--project-dir", str(project_dir),
        "--profiles-dir", str(profiles_dir or example_profiles_dir(target_dir)),
        "--target-path", str(target_dir / "dbt"),
        "--log-path", str(target_dir / "logs"),
    ]
    if dbt_vars:
        command += ["--vars", json.dumps(dict(dbt_vars))]
    saved = {key: os.environ.get(key) for key in (env or {})}
    os.environ.update(env or {})
    try:
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
