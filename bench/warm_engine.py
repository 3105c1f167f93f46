"""A warm engine (issue #36): the scale benchmark's builds through one Spark Connect server
(target `local_server`), which keeps the JVM, its loaded classes and its compiled code between
builds, against bench/scale.py's builds that each start their own.

    .venv/bin/python bench/warm_engine.py --records 10000000

In a fresh work folder: the lake of bench/scale.py's shape (`sync-logs-dev generate`), then the
server (`python -m dbt.adapters.sparksession.connect_server --target local`, the checkout's
profiles.example.yml: the `local` target's settings; its start is timed), then, each a dbt
process of its own against the server: seed, full build, marts, idle build, idle marts, one new
run of --increment records in the busiest sync (append_run), incremental build, incremental
marts, idle build. Per step: wall seconds, the peak PSS of the whole process tree (the server
included) and the CPU the step cost by kind (the server's threads, before and after the step,
and the dbt process's). Writes bench/results/warm_engine_<N>.json after every step.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

import psutil
from scale import (
    CANONICAL,
    CPU_KIND_ORDER,
    MARTS,
    PROJECT_DIR,
    RESULTS,
    cpu_kind,
    machine_facts,
    measure,
    node_timings,
    process_kind,
    run_checked,
    slug,
    thread_cpu_seconds,
)

from sync_logs_dev.dbt_subprocess import run_dbt_subprocess
from sync_logs_dev.generator_increment import append_run
from sync_logs_dev.services import free_port, port_open

SCHEMA = "bench"


def tree_cpu(root: psutil.Process) -> dict[tuple[int, int], tuple[str, float]]:
    """CPU seconds so far of every thread of `root`'s descendants, with its kind."""
    threads = {}
    for process in root.children(recursive=True):
        try:
            kind = process_kind(process)
            for tid, (name, seconds) in thread_cpu_seconds(process.pid).items():
                threads[(process.pid, tid)] = (cpu_kind(kind, name), seconds)
        except psutil.Error:
            pass
    return threads


def cpu_delta(before: dict, after: dict) -> dict[str, float]:
    totals = dict.fromkeys(CPU_KIND_ORDER, 0.0)
    for key, (kind, seconds) in after.items():
        totals[kind] += seconds - before.get(key, (kind, 0.0))[1]
    return {kind: round(seconds, 1) for kind, seconds in totals.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--records", type=int, required=True)
    parser.add_argument("--increment", type=int, default=100_000)
    parser.add_argument("--syncs", type=int, default=20)
    parser.add_argument("--runs-per-sync", type=int, default=30)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--work", type=Path, default=PROJECT_DIR / "target" / "bench")
    parser.add_argument("--project-dir", type=Path, default=PROJECT_DIR)
    parser.add_argument("--project-commit", default=None)
    parser.add_argument("--results", type=Path, default=RESULTS)
    parser.add_argument("--timeout", type=float, default=7200)
    args = parser.parse_args(argv)

    work = (args.work / f"warm_engine_{args.records}").resolve()
    shutil.rmtree(work, ignore_errors=True)
    (work / "profiles").mkdir(parents=True)
    shutil.copy(args.project_dir / "profiles.example.yml", work / "profiles" / "profiles.yml")
    lake, port = work / "lake", free_port()
    dbt_vars = {"sync_logs_raw_root": str(lake)}
    env = {"SYNC_LOGS_SPARK_REMOTE": f"sc://localhost:{port}", "SYNC_LOGS_SCHEMA": SCHEMA}
    machine = machine_facts(args.project_dir, args.project_commit)
    result: dict = {"records": args.records, "commit": machine["git_commit"],
                    "increment_records": args.increment, "machine": machine,
                    "started_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
                    "steps": [], "dbt_nodes": {}}
    out = args.results / f"warm_engine_{args.records}.json"

    def save() -> None:
        out.write_text(json.dumps(result, indent=2) + "\n")

    run_checked([str(Path(sys.executable).with_name("sync-logs-dev")), "generate", "--out",
                 str(lake), "--syncs", str(args.syncs), "--runs-per-sync", str(args.runs_per_sync),
                 "--records", str(args.records), "--seed", str(args.seed), "--no-progress",
                 "--json"], work / "generate.out", args.timeout)
    started = time.monotonic()
    server = subprocess.Popen(
        [sys.executable, "-m", "dbt.adapters.sparksession.connect_server", "--profiles-dir",
         str(work / "profiles"), "--target", "local", "--port", str(port)],
        env={**os.environ, "SYNC_LOGS_WAREHOUSE_DIR": str(work / "warehouse")},
        stdout=(work / "server.log").open("w"), stderr=subprocess.STDOUT,
    )
    bench = psutil.Process()
    try:
        while not port_open(port):
            if server.poll() is not None:
                raise SystemExit(f"the server did not start: see {work / 'server.log'}")
            time.sleep(0.2)
        result["server_start_s"] = round(time.monotonic() - started, 2)

        def dbt(step: str, dbt_args: list[str], records: int) -> None:
            if (work / "seed" / "dbt" / "partial_parse.msgpack").exists():
                (work / slug(step) / "dbt").mkdir(parents=True, exist_ok=True)
                shutil.copy(work / "seed" / "dbt" / "partial_parse.msgpack",
                            work / slug(step) / "dbt")
            before = tree_cpu(bench)
            measured, _ = measure(step, records, lambda: run_dbt_subprocess(
                dbt_args, target="local_server", work_dir=work / slug(step),
                project_dir=args.project_dir, profiles=work / "profiles", dbt_vars=dbt_vars,
                env=env, timeout=args.timeout))
            measured["cpu_seconds"] = cpu_delta(before, tree_cpu(bench))
            result["steps"].append(measured)
            result["dbt_nodes"][step] = node_timings(work / slug(step))
            save()

        dbt("seed", ["seed"], 0)
        dbt("full build", ["run", *CANONICAL], args.records)
        dbt("marts", ["run", *MARTS], args.records)
        dbt("idle build", ["run", *CANONICAL], 0)
        dbt("idle marts", ["run", *MARTS], 0)
        result["increment"] = {
            key: value for key, value in append_run(
                lake, args.increment, syncs=args.syncs, runs_per_sync=args.runs_per_sync,
                lake_records=args.records, seed=args.seed).items() if key != "files"}
        dbt("incremental build", ["run", *CANONICAL], args.increment)
        dbt("incremental marts", ["run", *MARTS], args.increment)
        dbt("idle build after", ["run", *CANONICAL], 0)
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=120)
    result["finished_at"] = datetime.now(timezone.utc).isoformat(timespec="seconds")
    save()
    shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
