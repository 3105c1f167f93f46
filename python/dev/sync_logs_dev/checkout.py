"""Where the repository's own tooling (demo, tests, benchmark) finds the sync_logs dbt project.

Users' commands never need this: they take `--project-dir` (dbt's default otherwise). The demo
and the test harness run the package's own dbt project, which only a source checkout has; an
installed (non-editable) package has none, so they take the folder as an argument, and their
default comes from `checkout_dir()`, which says how to fix it when there is no checkout.
"""

from __future__ import annotations

import os
from pathlib import Path

#: Names the checkout explicitly (e.g. tests run against an installed package from elsewhere).
PROJECT_DIR_ENV = "SYNC_LOGS_PROJECT_DIR"


class CheckoutNotFound(FileNotFoundError):
    """No sync_logs dbt project where the tooling looked; the message says how to name one."""


def is_sync_logs_project(folder: Path) -> bool:
    """True when `folder` holds the sync_logs dbt project (its dbt_project.yml, name sync_logs)."""
    project_file = folder / "dbt_project.yml"
    if not project_file.is_file():
        return False
    for line in project_file.read_text(encoding="utf-8").splitlines():
        if line.startswith("name:"):
            return line.partition(":")[2].strip().strip("'\"") == "sync_logs"
    return False


def checkout_dir() -> Path:
    """The sync_logs checkout: $SYNC_LOGS_PROJECT_DIR if set, else the checkout this module is
    imported from (an editable install or PYTHONPATH=python/dev), else the current directory when
    it is the checkout (an installed package run from the checkout's root, as the Python 3.13
    CI step does). Raises CheckoutNotFound otherwise."""
    named = os.environ.get(PROJECT_DIR_ENV)
    if named:
        folder = Path(named).resolve()
        if not is_sync_logs_project(folder):
            raise CheckoutNotFound(
                f"{PROJECT_DIR_ENV}={named} is not the sync_logs dbt project "
                "(no dbt_project.yml with name: sync_logs there)"
            )
        return folder
    for folder in (Path(__file__).resolve().parents[3], Path.cwd().resolve()):
        if is_sync_logs_project(folder):
            return folder
    raise CheckoutNotFound(
        "the sync_logs dbt project was not found: this needs a checkout of the sync_logs "
        f"repository (the installed package at {Path(__file__).resolve().parent} has none). "
        f"Run it from the checkout's root, set {PROJECT_DIR_ENV}, or pass the project folder "
        "(project_dir=... / --project-dir)."
    )
