"""Times the package's models on the embedded `local` target and on the `cluster` target (a
Spark standalone master and two 1-core workers on loopback) over the same generated lake, and
writes bench/results/cluster_vs_local.json.

For each target (after an untimed `dbt seed`): an initial `dbt run` over the lake minus each
sync's last run, then an incremental `dbt run` after those runs land (the cost of new runs),
with per-model seconds from run_results.json. Both read the lake by absolute file:// URI.

    .venv/bin/python bench/cluster_vs_local.py [--syncs 6 --runs-per-sync 6 --records 60000]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import signal
import sys
import tempfile
import time
from pathlib import Path

from sync_logs_dev.dbt_subprocess import run_dbt_subprocess
from sync_logs_dev.generator import generate_lake
from sync_logs_dev.services import SparkCluster, free_port

PROJECT_DIR = Path(__file__).resolve().parents[1]  # the checkout this benchmark belongs to
RESULTS = PROJECT_DIR / "bench" / "results" / "cluster_vs_local.json"
SCHEMA = "bench"


def hold_back_last_runs(lake: Path, parking: Path) -> list[str]:
    """Move each sync's highest-numbered run folder out of the lake; return their paths."""
    moved = []
    for sync_dir in sorted((lake / "sync_tracking_datasets").glob("*/*")):
        runs = sorted((p for p in sync_dir.iterdir() if p.name.isdigit()),
                      key=lambda p: int(p.name))
        if len(runs) < 2:
            continue
        relative = runs[-1].relative_to(lake)
        (parking / relative).parent.mkdir(parents=True, exist_ok=True)
        shutil.move(runs[-1], parking / relative)
        moved.append(str(relative))
    return moved


def land_runs(lake: Path, parking: Path, moved: list[str]) -> None:
    for relative in moved:
        shutil.move(parking / relative, lake / relative)


def model_seconds(work: Path) -> dict[str, float]:
    results = json.loads((work / "dbt" / "run_results.json").read_text())["results"]
    return {r["unique_id"].split(".")[-1]: round(r["execution_time"], 2) for r in results}


def time_target(target: str, lake: Path, parking: Path, moved: list[str], work: Path,
                env: dict[str, str], project_dir: Path) -> dict:
    """Initial run over the held-back lake, then the incremental run after the runs land."""
    env = {**env, "SYNC_LOGS_WAREHOUSE_DIR": str(work / "warehouse"), "SYNC_LOGS_SCHEMA": SCHEMA}
    dbt_vars = {"sync_logs_raw_root": lake.as_uri()}
    phases = {}
    # The package's seed (error categories) is loaded first, untimed: `dbt run` needs it.
    run_dbt_subprocess(["seed"], target=target, work_dir=work / "seed",
                       project_dir=project_dir, dbt_vars=dbt_vars, env=env)
    for phase in ("initial", "incremental"):
        if phase == "incremental":
            land_runs(lake, parking, moved)
        run = run_dbt_subprocess(["run"], target=target, work_dir=work / phase,
                                 project_dir=project_dir, dbt_vars=dbt_vars, env=env)
        phases[phase] = {"seconds": round(run.seconds, 1), "models": model_seconds(work / phase)}
        print(f"{target} {phase}: {run.seconds:.1f}s", flush=True)
    hold_back_last_runs(lake, parking)  # the next target starts from the same lake
    return phases


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--syncs", type=int, default=6)
    parser.add_argument("--runs-per-sync", type=int, default=6)
    parser.add_argument("--records", type=int, default=60_000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument("--keep", action="store_true", help="keep the work folder")
    parser.add_argument("--project-dir", type=Path, default=PROJECT_DIR,
                        help="the dbt project to time (e.g. a `git archive` of a commit)")
    args = parser.parse_args(argv)

    # SIGTERM/SIGHUP end the bench through `finally`, which stops the cluster.
    for signum in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, lambda *_: sys.exit(143))
    work = Path(tempfile.mkdtemp(prefix="sync_logs_bench_"))
    cluster = SparkCluster.with_free_ports(work / "cluster", workers=2)
    try:
        lake, parking = work / "lake", work / "parked_runs"
        summary = generate_lake(lake, syncs=args.syncs, runs_per_sync=args.runs_per_sync,
                                records=args.records, seed=args.seed)
        moved = hold_back_last_runs(lake, parking)
        local = time_target("local", lake, parking, moved, work / "local",
                            {"SYNC_LOGS_DRIVER_MEMORY": "2g"}, args.project_dir)
        started = time.monotonic()
        cluster.start()
        cluster_start = time.monotonic() - started
        env = cluster.driver_env(work / "driver-conf", ui_port=free_port())
        on_cluster = time_target("cluster", lake, parking, moved, work / "cluster_run", env,
                                 args.project_dir)
        result = {
            "lake": {"syncs": summary.syncs, "runs": summary.runs, "files": summary.files,
                     "records": summary.records, "bytes": summary.bytes,
                     "new_runs_in_incremental": len(moved)},
            "machine": {"cpus": os.cpu_count(), "load_average_at_end": os.getloadavg(),
                        "python": sys.version.split()[0], "platform": platform.platform()},
            "local": {"spark.master": "local[*]", "driver_memory": "2g", **local},
            "cluster": {"spark.master": cluster.master_url, "workers": cluster.workers,
                        "cores_per_worker": cluster.worker_cores,
                        "memory_per_worker": cluster.worker_memory,
                        "cluster_start_seconds": round(cluster_start, 1), **on_cluster},
        }
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(result, indent=2) + "\n")
        print(f"wrote {args.out}")
    finally:
        cluster.stop()
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
