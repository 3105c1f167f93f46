"""Fixtures of tests/report: the test project's packages, a DuckDB file of hand-made marts, and
a `Warehouse` (dbt parsed once) over it."""

import sys
from pathlib import Path

import pytest
from handmade_marts import MARTS_SCHEMA, PROJECT, create_tables

import dbt_deps

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "consumer"))  # docs_browser


@pytest.fixture(scope="session")
def report_project() -> Path:
    dbt_deps.install_package(PROJECT)
    return PROJECT


@pytest.fixture(scope="module")
def handmade(report_project, tmp_path_factory):
    """(work folder, DuckDB file) with every hand-made relation."""
    work = tmp_path_factory.mktemp("report_handmade")
    path = work / "marts.duckdb"
    create_tables(path, MARTS_SCHEMA)
    return work, path
