"""The DuckDB reference of bench/scale.py (bench/duckdb_reference.sql) on a hand-made lake, with
the expected rows written out by hand from the spec (tests/bench/reference_case.py, shared with the
PySpark reference's test), and its comparison catching a difference. No Spark.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import duckdb
import pytest
from reference_case import ReferenceRules, write_reference_lake

BENCH = Path(__file__).resolve().parents[2] / "bench"
spec = importlib.util.spec_from_file_location("duckdb_reference", BENCH / "duckdb_reference.py")
reference = importlib.util.module_from_spec(spec)
spec.loader.exec_module(reference)


@pytest.fixture(scope="module")
def lake(tmp_path_factory) -> Path:
    return write_reference_lake(tmp_path_factory.mktemp("reference_lake"))


@pytest.fixture(scope="module")
def outputs(lake, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("reference_out")
    reference.run_reference(lake, out)
    return out


class TestRules(ReferenceRules):
    """The hand-written expected rows (tests/bench/reference_case.py)."""

    counters = reference.COUNTERS


def test_compare_finds_equal_tables_equal_and_a_changed_row(outputs, tmp_path):
    """The package's tables as they lie in the warehouse (hive-partitioned parquet folders),
    made here from the reference's own rows: equal; then with one op_type changed: not."""
    schema = tmp_path / "bench.db"
    schema.mkdir()
    con = duckdb.connect()

    def write(op_type: str = "op_type") -> None:
        for folder, sql, partitions in (
            ("sync_changelog",
             f"select * replace ({op_type} as op_type) from read_parquet('{outputs}/changelog"
             ".parquet')", "sync_id, sync_run_id"),
            ("int_sync_logs__snapshot",
             f"select *, false as is_removed from read_parquet('{outputs}/snapshot.parquet')",
             "sync_id"),
            ("sync_runs", f"select * from read_parquet('{outputs}/runs.parquet')", "sync_id"),
        ):
            con.execute(f"copy ({sql}) to '{schema / folder}' "
                        f"(format parquet, partition_by ({partitions}), overwrite)")

    write()
    result = reference.compare(outputs, schema)
    assert {name: entry["match"] for name, entry in result.items()} == {
        "changelog": True, "snapshot": True, "runs": True}
    assert result["changelog"]["ours_rows"] == 16

    write(op_type="case when row_id = 'F' and sync_run_id = 90 then 'changed' else op_type end")
    changed = reference.compare(outputs, schema)["changelog"]
    assert (changed["match"], changed["only_ours"], changed["only_reference"]) == (False, 1, 1)
    assert changed["only_ours_samples"][0]["op_type"] == "changed"
    assert changed["only_reference_samples"][0]["op_type"] == "added"
