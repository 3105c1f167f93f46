"""Where a canonical build's time goes, node by node: the profile behind issue #16's targets.

    PYTHONPATH=python .venv/bin/python bench/build_profile.py --records 100000

The lake: `--lake DIR` as it is, or `--records N`: a demo lake of N records made under
`--work` by sync_logs_dev.generator.generate_lake (20 syncs of 30 runs, seed 7, as bench/scale.py).

Runs `dbt run --select path:models/canonical` `--builds` times over the same lake, in one
process and one embedded SparkSession (the `local` target's settings) with Spark's event log
on. The first build loads the lake; the next ones find nothing new (idle builds), the JVM
warm. For each build it prints, and writes to `--results` (.md and .json):

- dbt's own start (parse and graph) before the first node;
- each node: when it started (seconds into the build), its wall time, the time Spark spent in
  the SQL executions started while it ran (their union, so nested executions count once; nodes
  that run side by side share some), and how many top-level executions it started.

Spark time is the plans the library builds and the writes; the rest of a node's wall time is
dbt (compile, metastore statements) and Python.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import shutil
import sys
import time
from pathlib import Path

PROJECT_DIR = Path(__file__).resolve().parents[1]


def moment_ms(text: str) -> float:
    """A run_results.json timestamp (ISO 8601, UTC) as epoch milliseconds."""
    return dt.datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp() * 1000


def covered(intervals: list[tuple[float, float]]) -> float:
    """Length of the union of intervals."""
    total, current = 0.0, None
    for start, end in sorted(intervals):
        if current and start <= current[1]:
            current[1] = max(current[1], end)
            continue
        if current:
            total += current[1] - current[0]
        current = [start, end]
    return total + (current[1] - current[0] if current else 0.0)


def profile_build(run_results: Path, executions: list[tuple[int, int]]) -> dict:
    """One build's nodes from dbt's run_results.json (compile start to execute end), each with
    the Spark executions that started and ended inside it."""
    results = json.loads(run_results.read_text())
    start = moment_ms(results["metadata"]["invocation_started_at"])
    spans = {}
    for result in results["results"]:
        timing = {t["name"]: t for t in result["timing"]}
        name = result["unique_id"].split(".")[-1]
        spans[name] = (moment_ms(timing["compile"]["started_at"]),
                       moment_ms(timing["execute"]["completed_at"]))
    nodes = []
    for name, (began, finished) in sorted(spans.items(), key=lambda item: item[1]):
        inside = [e for e in executions if began <= e[0] and e[1] <= finished + 5]
        nodes.append({
            "node": name,
            "start_s": round((began - start) / 1000, 1),
            "wall_s": round((finished - began) / 1000, 1),
            "spark_s": round(covered(inside) / 1000, 1),
            "executions": len(inside),
        })
    return {
        "dbt_start_s": round((min(b for b, _ in spans.values()) - start) / 1000, 1),
        "wall_s": round((max(f for _, f in spans.values()) - start) / 1000, 1),
        "nodes": nodes,
    }


def markdown(lake: str, session_s: float, builds: list[dict]) -> str:
    lines = [f"# Canonical build profile: {lake}", "",
             f"SparkSession start (JVM included): {session_s} s.", ""]
    for number, build in enumerate(builds, 1):
        kind = "first build" if number == 1 else "idle build (nothing new)"
        lines += [f"## Build {number}: {kind}, {build['wall_s']} s", "",
                  f"dbt start (parse, graph): {build['dbt_start_s']} s", "",
                  "| node | start s | wall s | in Spark s | executions |",
                  "|---|---:|---:|---:|---:|"]
        lines += [f"| {n['node']} | {n['start_s']} | {n['wall_s']} | {n['spark_s']} | "
                  f"{n['executions']} |" for n in build["nodes"]]
        lines.append("")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    lake = parser.add_mutually_exclusive_group(required=True)
    lake.add_argument("--lake", type=Path)
    lake.add_argument("--records", type=int)
    parser.add_argument("--builds", type=int, default=2)
    parser.add_argument("--work", type=Path, default=PROJECT_DIR / "target" / "build_profile")
    parser.add_argument("--results", type=Path,
                        default=PROJECT_DIR / "bench" / "results" / "build_profile")
    args = parser.parse_args()
    shutil.rmtree(args.work, ignore_errors=True)
    events = args.work / "events"
    events.mkdir(parents=True)
    os.environ["SYNC_LOGS_WAREHOUSE_DIR"] = str(args.work / "warehouse")
    os.environ["PYSPARK_SUBMIT_ARGS"] = (
        f"--conf spark.eventLog.enabled=true --conf spark.eventLog.dir={events.as_uri()} "
        "--conf spark.eventLog.compress=false --conf spark.eventLog.rolling.enabled=false "
        "pyspark-shell"
    )
    from sync_logs.spark import local_session
    from sync_logs_dev.dbt_invoke import run_dbt
    from sync_logs_dev.generator import generate_lake
    from sync_logs_dev.spark_evidence import EventLog

    label = str(args.lake)
    if args.lake is None:
        args.lake = args.work / "lake"
        generate_lake(args.lake, records=args.records)
        label = f"generated lake of {args.records:,} records (generate_lake, seed 7)"

    clock = time.monotonic()
    session = local_session(args.work / "warehouse")
    session_s = round(time.monotonic() - clock, 1)
    for number in range(args.builds):
        run_dbt(["run", "--select", "path:models/canonical"], project_dir=PROJECT_DIR,
                target_dir=args.work / f"build_{number + 1}",
                dbt_vars={"sync_logs_raw_root": str(args.lake.resolve())},
                env={"SYNC_LOGS_SCHEMA": "build_profile"})
    session.stop()
    (event_log,) = EventLog.in_folder(events)
    builds = [profile_build(args.work / f"build_{n + 1}" / "dbt" / "run_results.json",
                            event_log.sql_executions) for n in range(args.builds)]
    args.results.parent.mkdir(parents=True, exist_ok=True)
    args.results.with_suffix(".json").write_text(json.dumps(
        {"lake": label, "session_s": session_s, "builds": builds}, indent=2) + "\n")
    text = markdown(label, session_s, builds)
    args.results.with_suffix(".md").write_text(text + "\n")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
