"""What the package's data tests cost in a user's build (issue #36): one whole `dbt build` from
an empty warehouse over a lake, on the embedded `local` target, and the thread-time of its
nodes (run_results.json `execution_time`, summed) by resource type: models, data tests, unit
tests, seeds. The target: data tests ≤ 25% of the models' thread-time at 1M records.

    .venv/bin/python bench/data_test_cost.py --records 1000000
    .venv/bin/python bench/data_test_cost.py --lake /tmp/lake1m --records 1000000 \
        --vars '{"sync_logs_all_data_tests": true}' --out /tmp/all_tests.json
    .venv/bin/python bench/data_test_cost.py --lake /tmp/lake1m --profiles-dir /tmp/my_profiles \
        --out /tmp/my_profiles.json       # another profiles.yml (exits 1 if the build failed)

Writes bench/results/data_test_cost_<N>.json (or --out); bench/scale.py's scale.md reads it for
the target's row.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

from sync_logs_dev.dbt_subprocess import run_dbt_subprocess

BENCH_DIR = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH_DIR))
from scale import PROJECT_DIR, RESULTS, SCHEMA, machine_facts, thread_seconds  # noqa: E402

TARGET_RATIO = 0.25


def whole_build(lake: Path, work: Path, project_dir: Path, dbt_vars: dict, timeout: float,
                profiles: Path | None = None) -> dict:
    shutil.rmtree(work, ignore_errors=True)
    env = {"SYNC_LOGS_WAREHOUSE_DIR": str(work / "warehouse"), "SYNC_LOGS_SCHEMA": SCHEMA}
    started = time.monotonic()
    run = run_dbt_subprocess(["build"], target="local", work_dir=work / "build",
                             project_dir=project_dir, dbt_vars={"sync_logs_raw_root": str(lake),
                                                                **dbt_vars},
                             env=env, check=False, timeout=timeout, profiles=profiles)
    wall = round(time.monotonic() - started, 1)
    results = json.loads((work / "build" / "dbt" / "run_results.json").read_text())
    split = thread_seconds(results)
    models = split.get("model", {}).get("seconds", 0)
    tests = split.get("test", {}).get("seconds", 0)
    slowest_tests = sorted((r for r in results["results"] if r["unique_id"].startswith("test.")),
                           key=lambda r: -r["execution_time"])
    return {
        "returncode": run.returncode,
        "failed": [r["unique_id"] for r in results["results"] if r["status"] in ("error", "fail")],
        "wall_s": wall,
        "thread_s": split,
        "data_tests_to_models": round(tests / models, 3) if models else None,
        "tests": {r["unique_id"]: {"status": r["status"], "seconds": round(r["execution_time"], 2)}
                  for r in slowest_tests},
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--records", type=int, default=1_000_000)
    parser.add_argument("--lake", type=Path, default=None,
                        help="a lake of --records records already generated (default: generate)")
    parser.add_argument("--work", type=Path, default=Path("target/bench_data_test_cost"))
    parser.add_argument("--project-dir", type=Path, default=PROJECT_DIR)
    parser.add_argument("--project-commit", default=None)
    parser.add_argument("--vars", default="{}", help="more dbt vars (JSON)")
    parser.add_argument("--profiles-dir", type=Path, default=None,
                        help="a folder holding the profiles.yml to use (default: the checkout's "
                             "profiles.example.yml)")
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--timeout", type=float, default=3600)
    args = parser.parse_args(argv)
    work = args.work.resolve()
    lake = args.lake
    if lake is None:
        lake = work / "lake"
        shutil.rmtree(lake, ignore_errors=True)
        generate = Path(sys.executable).with_name("sync-logs-dev")
        subprocess.run([str(generate), "generate", "--out", str(lake), "--records",
                        str(args.records), "--no-progress"], check=True)
    dbt_vars = json.loads(args.vars)
    result = {
        "records": args.records,
        "vars": dbt_vars,
        "started_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "machine": machine_facts(args.project_dir, args.project_commit),
        **whole_build(lake, work / "build", args.project_dir, dbt_vars, args.timeout,
                      args.profiles_dir),
    }
    out = args.out or RESULTS / f"data_test_cost_{args.records}.json"
    out.write_text(json.dumps(result, indent=2) + "\n")
    ratio = result["data_tests_to_models"]
    print(json.dumps({k: result[k] for k in ("returncode", "failed", "wall_s", "thread_s")}),
          flush=True)
    print(f"data tests / models thread-time: {ratio} (target ≤ {TARGET_RATIO})", flush=True)
    return 0 if result["returncode"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
