"""The comparison of bench/canonical_equality.py on hand-made DataFrames: what it counts as
missing and extra (duplicates included), the build-clock columns it leaves out, and the
columns and types it reports."""

from __future__ import annotations

import importlib.util
from datetime import datetime
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench"
spec = importlib.util.spec_from_file_location("canonical_equality",
                                              BENCH / "canonical_equality.py")
equality = importlib.util.module_from_spec(spec)
spec.loader.exec_module(equality)

SCHEMA = "sync_id bigint, row_id string, op_type string, logged_at timestamp"
T1, T2 = datetime(2026, 10, 1, 6, 0), datetime(2026, 11, 25, 8, 0)


def test_equal_tables_built_at_other_times_are_equal(spark):
    before = spark.createDataFrame([(1, "a", "added", T1), (1, "b", "added", T1)], SCHEMA)
    after = spark.createDataFrame([(1, "b", "added", T2), (1, "a", "added", T2)], SCHEMA)
    result = equality.compare_frames("sync_changelog", before, after)
    assert result["equal"] is True
    assert result["public"] is True
    assert result["excluded_columns"] == ["logged_at"]
    assert (result["rows_before"], result["rows_after"]) == (2, 2)
    assert (result["missing"], result["extra"]) == (0, 0)


def test_a_changed_row_and_a_lost_duplicate_are_counted_and_shown(spark):
    before = spark.createDataFrame(
        [(1, "a", "added", T1), (1, "b", "added", T1), (1, "b", "added", T1)], SCHEMA)
    after = spark.createDataFrame([(1, "a", "changed", T1), (1, "b", "added", T1)], SCHEMA)
    result = equality.compare_frames("int_sync_logs__facts", before, after)
    assert result["equal"] is False
    assert result["public"] is False
    assert (result["rows_before"], result["rows_after"]) == (3, 2)
    assert (result["missing"], result["extra"]) == (2, 1)
    assert sorted((r["row_id"], r["op_type"]) for r in result["first_missing"]) == [
        ("a", "added"), ("b", "added")]
    assert result["first_extra"] == [{"sync_id": 1, "row_id": "a", "op_type": "changed"}]


def test_columns_on_one_side_and_other_types_are_reported(spark):
    before = spark.createDataFrame([(1, "a", "added", T1)], SCHEMA)
    after = spark.createDataFrame([(1, "a", "added", "x")],
                                  "sync_id int, row_id string, op_type string, extra string")
    result = equality.compare_frames("sync_runs", before, after)
    assert result["equal"] is False
    assert result["columns_only_after"] == ["extra"]
    assert result["columns_only_before"] == []
    assert result["type_differences"] == {"sync_id": ["bigint", "int"]}
    assert (result["missing"], result["extra"]) == (0, 0)
