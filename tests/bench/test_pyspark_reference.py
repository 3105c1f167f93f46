"""The PySpark reference of bench/scale.py (bench/pyspark_reference.py) on the DuckDB reference's
hand-made lake and hand-written expected rows (tests/bench/reference_case.py), and both references
agreeing on a small generated lake with bad input. The job runs in-process on the session's
SparkSession.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import duckdb
import pytest
from reference_case import ReferenceRules, write_reference_lake

from sync_logs_dev.generator import generate_lake

BENCH = Path(__file__).resolve().parents[2] / "bench"


def load(name: str):
    spec = importlib.util.spec_from_file_location(name, BENCH / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


pyspark_reference = load("pyspark_reference")
duckdb_reference = load("duckdb_reference")

# Files neither reference reads (both are for valid lakes): DuckDB and Spark fail on them.
UNREADABLE = {"corrupt_parquet", "truncated_parquet"}


@pytest.fixture(scope="module")
def outputs(spark, tmp_path_factory) -> Path:
    lake = write_reference_lake(tmp_path_factory.mktemp("reference_lake"))
    out = tmp_path_factory.mktemp("pyspark_out")
    pyspark_reference.reference(spark, lake, out)
    return out


class TestRules(ReferenceRules):
    """The hand-written expected rows (tests/bench/reference_case.py)."""

    counters = duckdb_reference.COUNTERS


def test_same_columns_as_the_duckdb_reference(outputs, tmp_path):
    duck = tmp_path / "duckdb"
    duckdb_reference.run_reference(write_reference_lake(tmp_path / "lake"), duck)
    for table in ("changelog", "snapshot", "runs"):
        assert _columns(outputs, table) == _columns(duck, table), table


def _columns(out: Path, table: str) -> list[str]:
    path = out / f"{table}.parquet"
    pattern = path / "*.parquet" if path.is_dir() else path
    return [d[0] for d in duckdb.sql(f"select * from read_parquet('{pattern}')").description]


def test_both_references_agree_on_a_generated_lake_with_bad_input(spark, tmp_path):
    lake = tmp_path / "lake"
    summary = generate_lake(lake, syncs=4, runs_per_sync=6, records=3000, seed=3,
                            bad_inputs=True)
    kinds = {item["kind"] for item in summary.manifest["bad_items"]}
    assert {"non_integer_folder", "metadata_not_json", "metadata_ids_mismatch",
            "missing_column", "payload_not_object", "late_run"} <= kinds
    for item in summary.manifest["bad_items"]:
        if item["kind"] in UNREADABLE:
            (lake / item["path"]).unlink()
    pyspark_reference.reference(spark, lake, tmp_path / "pyspark")
    duckdb_reference.run_reference(lake, tmp_path / "duckdb")
    result = duckdb_reference.compare_references(tmp_path / "pyspark", tmp_path / "duckdb")
    assert {name: (entry["match"], entry["ours_rows"]) for name, entry in result.items()} == {
        "changelog": (True, result["changelog"]["reference_rows"]),
        "snapshot": (True, result["snapshot"]["reference_rows"]),
        "runs": (True, result["runs"]["reference_rows"]),
    }, result
    assert result["changelog"]["ours_rows"] > 2500  # records were read, not all dropped
