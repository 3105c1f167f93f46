"""Wall time and peak memory of the canonical models at scale.

    .venv/bin/python bench/canonical_scale.py [--records 1000000] [--out target/bench]

1. generates a lake of `--records` records (with every bad input) and runs a full
   `dbt build` of the canonical models on the embedded Spark;
2. adds one new run of 10,000 records and runs an incremental `dbt build`.
Peak memory is the largest resident set size of this process and all its children (the JVM,
Python workers), sampled every 0.2 s with psutil.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import threading
import time
from pathlib import Path

import psutil


class PeakMemory:
    """Samples the RSS of this process tree in a background thread."""

    def __init__(self, interval: float = 0.2):
        self.interval = interval
        self.peak = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _sample(self) -> int:
        root = psutil.Process()
        total = 0
        for process in [root, *root.children(recursive=True)]:
            try:
                total += process.memory_info().rss
            except psutil.Error:
                pass
        return total

    def _run(self) -> None:
        while not self._stop.is_set():
            self.peak = max(self.peak, self._sample())
            time.sleep(self.interval)

    def __enter__(self) -> PeakMemory:
        self.peak = self._sample()
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--records", type=int, default=1_000_000)
    parser.add_argument("--out", default="target/bench")
    parser.add_argument("--driver-memory", default="4g")
    args = parser.parse_args()
    out = Path(args.out).resolve()
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    os.environ["SYNC_LOGS_WAREHOUSE_DIR"] = str(out / "warehouse")

    from sync_logs.dbt_invoke import run_dbt
    from sync_logs.generator import generate_lake
    from sync_logs.spark import local_session

    lake = out / "lake"
    started = time.perf_counter()
    generate_lake(lake, syncs=20, runs_per_sync=30, records=args.records, seed=7,
                  bad_inputs=True)
    generated = time.perf_counter() - started
    spark = local_session(out / "warehouse", driver_memory=args.driver_memory)
    select = ["--select", "path:models/canonical", "path:tests/data"]
    env = {"SYNC_LOGS_SCHEMA": "bench"}
    results = {"records": args.records, "generate_seconds": round(generated, 1)}

    with PeakMemory() as memory:
        started = time.perf_counter()
        run_dbt(["build", *select], target_dir=out / "dbt", dbt_vars={"raw_root": str(lake)},
                env=env)
        results["full_build_seconds"] = round(time.perf_counter() - started, 1)
    results["full_build_peak_rss_mib"] = round(memory.peak / 2**20)

    extra = out / "extra"
    generate_lake(extra, syncs=1, runs_per_sync=1, records=10_000, seed=99)
    run_folder = next(p for p in (extra / "sync_tracking_datasets").glob("*/*/*") if p.is_dir())
    target = lake / run_folder.relative_to(extra)
    shutil.copytree(run_folder, target)
    with PeakMemory() as memory:
        started = time.perf_counter()
        run_dbt(["build", *select], target_dir=out / "dbt", dbt_vars={"raw_root": str(lake)},
                env=env)
        results["incremental_build_seconds"] = round(time.perf_counter() - started, 1)
    results["incremental_build_peak_rss_mib"] = round(memory.peak / 2**20)
    results["changelog_rows"] = spark.table("bench.sync_changelog").count()
    results["runs"] = spark.table("bench.sync_runs").count()
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
