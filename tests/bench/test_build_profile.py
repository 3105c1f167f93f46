"""bench/build_profile.py on a hand-written run_results.json and Spark execution spans: each
node's start, wall time, time inside Spark (overlapping executions counted once) and count."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench"
spec = importlib.util.spec_from_file_location("build_profile", BENCH / "build_profile.py")
build_profile = importlib.util.module_from_spec(spec)
spec.loader.exec_module(build_profile)

T0 = 1_795_000_000_000  # epoch ms


def at(ms_after_t0: int) -> str:
    return build_profile.dt.datetime.fromtimestamp(
        (T0 + ms_after_t0) / 1000, build_profile.dt.UTC).isoformat().replace("+00:00", "Z")


def node(name: str, compile_start: int, execute_end: int) -> dict:
    return {"unique_id": f"model.sync_logs.{name}", "timing": [
        {"name": "compile", "started_at": at(compile_start),
         "completed_at": at(compile_start + 10)},
        {"name": "execute", "started_at": at(compile_start + 10),
         "completed_at": at(execute_end)},
    ]}


def test_covered_counts_overlaps_once():
    assert build_profile.covered([(0, 10), (5, 20), (30, 40)]) == 30
    assert build_profile.covered([]) == 0


def test_profile_build_puts_each_execution_in_its_node(tmp_path):
    results = tmp_path / "run_results.json"
    results.write_text(json.dumps({
        "metadata": {"invocation_started_at": at(0)},
        "results": [node("sync_runs", 9000, 12000), node("lake_files", 6000, 9000)],
    }))
    executions = [(T0 + 6500, T0 + 7500), (T0 + 7000, T0 + 8000), (T0 + 9500, T0 + 11500)]

    profile = build_profile.profile_build(results, executions)

    assert profile["dbt_start_s"] == 6.0
    assert profile["wall_s"] == 12.0
    assert profile["nodes"] == [
        {"node": "lake_files", "start_s": 6.0, "wall_s": 3.0, "spark_s": 1.5, "executions": 2},
        {"node": "sync_runs", "start_s": 9.0, "wall_s": 3.0, "spark_s": 2.0, "executions": 1},
    ]
