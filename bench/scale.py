"""Scale benchmark (issues #6 and #16): the package's dbt models on the embedded `local` target at
lake sizes of N records, against two references over the same files: plain DuckDB SQL, and a
plain PySpark job without dbt.

    .venv/bin/python bench/scale.py --records 1000000 3000000 10000000     # or: make bench

For each N, in a fresh work folder (lake, warehouse, logs; removed afterwards unless --keep):
  1. generate    `sync-logs-dev generate` (--syncs 20 --runs-per-sync 30, no bad inputs): N records
  2. (untimed)   `dbt seed` (the marts need the error categories seed); its partial parse file
                 starts every later dbt step, as a project's target/ keeps it between runs
  3. full build  `dbt run --select tag:sync_logs_canonical` over the N records
  4. reference   bench/duckdb_reference.py: changelog, snapshot and run counters of the lake in
                 plain DuckDB SQL; then bench/pyspark_reference.py, the same in plain PySpark
                 (its own JVM, with the `local` target's driver memory and shuffle partitions);
                 our tables are compared with each reference's, row for row
  5. marts       `dbt run --select tag:sync_logs_staging tag:sync_logs_intermediate
                 tag:sync_logs_marts`: the first build of the marts, over the N records
  6. one new run of exactly --increment records lands in the busiest sync, as its newest run
     (sync_logs_dev.generator_increment.append_run)
  7. incremental `dbt run --select tag:sync_logs_canonical` again; the references recompute the
                 whole lake (what a user without the package does); compared again
     incremental marts  the marts again: they rewrite the one sync the new run changed
     idle build  the canonical models once more, with nothing new: what a build costs whatever
                 the data
  8. data tests  `dbt test --select tag:sync_logs_canonical` (skip with --no-tests)
  9. whole dbt build  `dbt build` with nothing new: every model, mart and data test, as a
                 user's nightly `dbt build` runs them
Every timed step is its own process, as a user runs it: wall time, records per second and the
peak memory of its whole process tree (the dbt process, Spark's JVM, Python workers): PSS summed
(shared pages counted once) every 2 s, RSS summed every 0.5 s, and the sum of each process's own
peak RSS, a bound that no instant exceeded (TreeSampler). Spark settings are the
profile's `local` target as is (profiles.example.yml).

Writes bench/results/scale_<N>.json per size and regenerates bench/results/scale.md from every
scale_*.json there; while a size runs, partial_scale_<N>.json holds the steps measured so far.
Exits 1 when a step fails or the package's tables differ from the reference.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path

import psutil

from sync_logs_dev.dbt_subprocess import DBT, run_dbt_subprocess
from sync_logs_dev.generator_increment import append_run

BENCH_DIR = Path(__file__).resolve().parent
PROJECT_DIR = BENCH_DIR.parent  # the checkout this benchmark belongs to
sys.path.insert(0, str(BENCH_DIR))
from duckdb_reference import compare  # noqa: E402

RESULTS = BENCH_DIR / "results"
SCHEMA = "bench"
GIB = 2**30
CANONICAL = ["--select", "tag:sync_logs_canonical"]
MARTS = ["--select", "tag:sync_logs_staging", "tag:sync_logs_intermediate", "tag:sync_logs_marts"]
# The Spark settings of the `local` target are read back from the session dbt actually runs
# (Spark substitutes ${name} in SQL text with the conf value), as are spark.master and the
# driver's memory when the profile leaves them out.
ALWAYS_READ = ["spark.master", "spark.driver.memory", "spark.sql.shuffle.partitions"]
TARGETS_MD = """\
Targets of issue #36 (which replaced those of #16), and of issue #17 for the marts: a build with
nothing new at 10M records (idle build) in ≤ 20 s wall, JVM start included; a full build within
1.5× the PySpark reference at 1M records and 1.2× at 10M (the DuckDB ratio beside it); the
incremental build of one 100,000-record run over 10M records of history in ≤ 45 s for the
canonical models; peak memory (PSS of the process tree) < 6 GiB for every step of ours; in a
whole `dbt build` of 1M records from an empty warehouse (bench/data_test_cost.py), the
package's data tests take ≤ 25% of the models' thread-time."""


# Kinds of CPU use, from thread names (Linux /proc/<pid>/task/<tid>/comm, 15 characters).
CPU_KINDS = [
    ("JVM JIT compiler", ("C1 CompilerThre", "C2 CompilerThre")),
    ("JVM garbage collector", ("GC Thread", "G1 ", "VM Thread")),
    ("Spark tasks", ("Executor task",)),
]
CPU_KIND_ORDER = [
    "Spark tasks", "JVM driver threads", "JVM JIT compiler", "JVM garbage collector",
    "dbt and model code (Python)", "Spark's Python workers", "other processes",
]


def cpu_kind(process_kind: str, thread_name: str) -> str:
    if process_kind != "java":
        return process_kind
    for kind, prefixes in CPU_KINDS:
        if thread_name.startswith(prefixes):
            return kind
    return "JVM driver threads"  # planning, code generation, metastore, scheduling, py4j


def process_kind(process: psutil.Process) -> str:
    name, command = process.name(), " ".join(process.cmdline())
    if name == "java":
        return "java"
    if "pyspark.daemon" in command or "pyspark.worker" in command:
        return "Spark's Python workers"
    if name.startswith("python") or "/dbt" in command:
        return "dbt and model code (Python)"
    return "other processes"


def thread_cpu_seconds(pid: int) -> dict[int, tuple[str, float]]:
    """Per thread of `pid`: (name, user + system CPU seconds so far)."""
    ticks = os.sysconf("SC_CLK_TCK")
    threads = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            stat = Path(f"/proc/{pid}/task/{tid}/stat").read_text()
        except OSError:
            continue  # ended between listing and reading
        name = stat[stat.index("(") + 1 : stat.rindex(")")]
        fields = stat[stat.rindex(")") + 2 :].split()
        threads[int(tid)] = (name, (int(fields[11]) + int(fields[12])) / ticks)
    return threads


def peak_rss_kib(pid: int) -> int:
    """The process's peak resident set so far (VmHWM, KiB): a counter the kernel keeps, read
    without walking the process's page tables."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    return 0


class TreeSampler:
    """Peak memory and CPU by kind of this process's descendants (not this process), sampled
    in a thread. Every `interval` seconds: each process's RSS and its peak RSS (cheap counters).
    Every `pss_every` samples: PSS, from smaps_rollup, which walks the page tables of a JVM of
    some GiB while holding its memory map's lock; every `cpu_every` samples: every thread's CPU
    counters. Both cost the step: reading PSS every 0.2 s and CPU every 1 s, the sampler took 8
    to 10 CPU seconds of a 65 s step and made it up to 9 s slower (settings.md, session 19).
    CPU is summed over threads; a thread's CPU after its last reading is missed.
    `peak_rss_bound` (in the JSON only): the sum of every process's own peak RSS, which no
    instant of the tree exceeded; loose, as the Python workers forked from one daemon count
    their shared pages each (10.4 GiB against a PSS peak of 4.2 GiB at 1M)."""

    def __init__(self, interval: float = 0.5, pss_every: int = 4, cpu_every: int = 4):
        self.interval = interval
        self.pss_every = pss_every
        self.cpu_every = cpu_every
        self.peak_pss = self.peak_rss = 0
        self.samples = 0
        self.sample_seconds = self.sample_cpu_seconds = 0.0
        self.java_heap = None
        self._kinds: dict[tuple[int, str], str] = {}
        self._peak_rss_kib: dict[tuple[int, str], int] = {}
        self._thread_cpu: dict[tuple[int, int], tuple[str, float]] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    @property
    def peak_rss_bound(self) -> int:
        return 1024 * sum(self._peak_rss_kib.values())

    def sample(self) -> None:
        started, cpu = time.perf_counter(), time.thread_time()
        pss = rss = 0
        read_pss = self.samples % self.pss_every == 0
        read_cpu = self.samples % self.cpu_every == 0
        for process in psutil.Process().children(recursive=True):
            try:
                key = (process.pid, process.name())  # spark-submit's script execs java
                if key not in self._kinds:
                    self._kinds[key] = process_kind(process)
                kind = self._kinds[key]
                process_rss = process.memory_info().rss
                rss += process_rss
                # the kernel's counters are per CPU and read apart: never below a sample's RSS
                peak_kib = max(peak_rss_kib(process.pid), -(-process_rss // 1024))
                self._peak_rss_kib[key] = max(self._peak_rss_kib.get(key, 0), peak_kib)
                if read_pss:
                    pss += process.memory_full_info().pss  # smaps_rollup: no page list
                if read_cpu:
                    for tid, (name, seconds) in thread_cpu_seconds(process.pid).items():
                        self._thread_cpu[(process.pid, tid)] = (cpu_kind(kind, name), seconds)
                if self.java_heap is None and kind == "java":
                    command = process.cmdline()
                    if "org.apache.spark.deploy.SparkSubmit" in command:  # the driver's JVM
                        self.java_heap = next(
                            (a[4:] for a in command if a.startswith("-Xmx")), None
                        )
            except (psutil.Error, OSError):
                pass  # ended between listing and reading
        if read_pss:
            self.peak_pss = max(self.peak_pss, pss)
        self.peak_rss = max(self.peak_rss, rss)
        self.samples += 1
        self.sample_seconds += time.perf_counter() - started
        self.sample_cpu_seconds += time.thread_time() - cpu

    def cpu_seconds(self) -> dict[str, float]:
        totals = dict.fromkeys(CPU_KIND_ORDER, 0.0)
        for kind, seconds in self._thread_cpu.values():
            totals[kind] += seconds
        return {kind: round(seconds, 1) for kind, seconds in totals.items()}

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            self.sample()

    def __enter__(self) -> TreeSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()


def slug(step: str) -> str:
    return step.replace(" ", "_")


def load_average() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def measure(step: str, records: int, run: Callable[[], object]) -> tuple[dict, object]:
    """Time `run` (which runs one subprocess to completion) and sample its process tree."""
    before = load_average()
    with TreeSampler() as memory:
        started = time.monotonic()
        outcome = run()
        wall = time.monotonic() - started
    result = {
        "step": step,
        "wall_s": round(wall, 2),
        "records": records,
        "records_per_s": round(records / wall) if wall else None,
        "peak_pss_bytes": memory.peak_pss,
        "peak_rss_bytes": memory.peak_rss,
        "peak_rss_bound_bytes": memory.peak_rss_bound,
        "memory_samples": memory.samples,
        "mean_sample_ms": round(1000 * memory.sample_seconds / max(memory.samples, 1), 1),
        # the sampler's own CPU (it shares the machine with the step)
        "sampler_cpu_s": round(memory.sample_cpu_seconds, 1),
        "java_max_heap": memory.java_heap,
        "cpu_seconds": memory.cpu_seconds(),
        "load_average_before": before,
        "load_average_after": load_average(),
    }
    print(f"  {step}: {wall:.1f}s, {result['records_per_s'] or 0:,} records/s, "
          f"peak PSS {memory.peak_pss / GIB:.2f} GiB", flush=True)
    return result, outcome


def run_checked(command: list[str], log: Path, timeout: float, env: dict | None = None) -> str:
    log.parent.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                          timeout=timeout, env={**os.environ, **(env or {})})
    log.write_text(done.stdout)
    if done.returncode != 0:
        tail = "\n".join(done.stdout.splitlines()[-40:])
        raise RuntimeError(f"{' '.join(command)} exited {done.returncode}:\n{tail}")
    return done.stdout


def node_timings(work_dir: Path) -> dict:
    """Per node of a dbt invocation (run_results.json): status and seconds, slowest first."""
    path = work_dir / "dbt" / "run_results.json"
    if not path.exists():
        return {}
    results = json.loads(path.read_text())

    def at(text: str) -> datetime:
        return datetime.fromisoformat(text.replace("Z", "+00:00"))

    spans = {}
    for r in results["results"]:
        for t in r.get("timing", []):
            if t["name"] == "execute" and t.get("started_at") and t.get("completed_at"):
                spans[r["unique_id"]] = (at(t["started_at"]), at(t["completed_at"]))
    first = min((start for start, _ in spans.values()), default=None)
    nodes = {}
    for r in sorted(results["results"], key=lambda r: -r["execution_time"]):
        phases = {}
        for t in r.get("timing", []):
            if t.get("started_at") and t.get("completed_at"):
                seconds = at(t["completed_at"]) - at(t["started_at"])
                phases[t["name"]] = round(seconds.total_seconds(), 2)
        if r["unique_id"] in spans:  # execution span, from the first node's start
            start, end = spans[r["unique_id"]]
            phases["from"] = round((start - first).total_seconds(), 1)
            phases["to"] = round((end - first).total_seconds(), 1)
        nodes[r["unique_id"]] = {"status": r["status"], "seconds": round(r["execution_time"], 2),
                                 **{f"{k}_s": v for k, v in phases.items()}}
    return {"elapsed_s": round(results.get("elapsed_time", 0), 2),
            "thread_s": thread_seconds(results), "nodes": nodes}


def thread_seconds(run_results: dict) -> dict:
    """Seconds and nodes per resource type (`model`, `test`, `unit_test`, `seed`) of a dbt
    invocation's run_results.json: its nodes' `execution_time`, summed."""
    seconds, count = {}, {}
    for r in run_results["results"]:
        kind = r["unique_id"].split(".")[0]
        seconds[kind] = seconds.get(kind, 0.0) + r["execution_time"]
        count[kind] = count.get(kind, 0) + 1
    return {kind: {"seconds": round(seconds[kind], 1), "nodes": count[kind]} for kind in seconds}


def profile_settings(project_dir: Path) -> list[str]:
    """Names of the Spark settings the `local` target of profiles.example.yml sets."""
    import yaml

    profile = yaml.safe_load((project_dir / "profiles.example.yml").read_text())
    local = profile["sync_logs"]["outputs"]["local"]
    names = list(local.get("server_side_parameters", {}))
    return names + [n for n in ALWAYS_READ if n not in names]


def spark_settings(work: Path, project_dir: Path, dbt_vars: dict, env: dict,
                   timeout: float) -> dict:
    """The Spark settings of the session dbt runs, read back with `dbt show`."""
    names = [n for n in profile_settings(project_dir) if n.startswith("spark.")]
    columns = ", ".join(f"'${{{name}}}' as `{name}`" for name in names)
    run = run_dbt_subprocess(["show", "--inline", f"select {columns}", "--output", "json"],
                             target="local", work_dir=work / "spark_settings",
                             project_dir=project_dir, dbt_vars=dbt_vars, env=env, check=False,
                             timeout=timeout)
    text = run.output
    start = text.find('"show"')
    try:
        start = text.rindex("{", 0, start)
        shown = json.JSONDecoder().raw_decode(text[start:])[0]["show"][0]
    except (ValueError, KeyError, IndexError):
        return {"error": "could not read the settings back", "output_tail": run.tail(10)}
    # a conf that is not set comes back as the literal ${name}
    return {name: (None if str(value).startswith("${") else value)
            for name, value in shown.items()}


def machine_facts(project_dir: Path, project_commit: str | None) -> dict:
    def git(*args: str) -> str:
        done = subprocess.run(["git", "-C", str(project_dir), *args], capture_output=True,
                              text=True)
        return done.stdout.strip() if done.returncode == 0 else ""

    import duckdb
    import pyspark

    return {
        "cpus": os.cpu_count(),
        "memory_bytes": psutil.virtual_memory().total,
        "platform": platform.platform(),
        "python": sys.version.split()[0],
        "pyspark": pyspark.__version__,
        "duckdb": duckdb.__version__,
        "git_commit": project_commit or git("rev-parse", "HEAD") or None,
        "git_dirty": bool(git("status", "--porcelain", "--untracked-files=no")),
        "project_dir": str(project_dir),
        "driver_memory_env": os.environ.get("SYNC_LOGS_DRIVER_MEMORY"),
    }


def bench_size(records: int, args: argparse.Namespace, settings: dict | None) -> dict:
    work = (args.work / f"scale_{records}").resolve()
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    lake = work / "lake"
    env = {"SYNC_LOGS_WAREHOUSE_DIR": str(work / "warehouse"), "SYNC_LOGS_SCHEMA": SCHEMA}
    dbt_vars = {"sync_logs_raw_root": str(lake)}
    shape = {"syncs": args.syncs, "runs_per_sync": args.runs_per_sync, "seed": args.seed}
    machine = machine_facts(args.project_dir, args.project_commit)
    result: dict = {
        "records": records,
        # the code measured, so that every size of scale.md can be told apart
        "commit": machine["git_commit"],
        "increment_records": args.increment,
        "started_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "machine": machine,
        "lake_shape": {**shape, "bad_inputs": False},
        "steps": [],
        "dbt_nodes": {},
        "checks": {},
    }
    print(f"== {records:,} records in {work}", flush=True)

    partial = args.results / f"partial_scale_{records}.json"

    def save_partial() -> None:
        """What is measured so far, after each step: a run stopped half-way keeps it."""
        partial.write_text(json.dumps(result, indent=2) + "\n")

    def dbt(step: str, args_: list[str], step_records: int) -> dict:
        # dbt's partial parse file, as a user's project keeps it in target/ between runs.
        (work / slug(step) / "dbt").mkdir(parents=True, exist_ok=True)
        shutil.copy(work / "seed" / "dbt" / "partial_parse.msgpack", work / slug(step) / "dbt")

        def go():
            return run_dbt_subprocess(args_, target="local", work_dir=work / slug(step),
                                      project_dir=args.project_dir, dbt_vars=dbt_vars,
                                      env=env, timeout=args.timeout)

        measured, _ = measure(step, step_records, go)
        result["steps"].append({**measured, "engine": "dbt-spark", "command": ["dbt", *args_]})
        result["dbt_nodes"][step] = node_timings(work / slug(step))
        save_partial()
        return measured

    def reference(step: str, out: Path, step_records: int) -> dict:
        command = [sys.executable, str(BENCH_DIR / "duckdb_reference.py"), "--lake", str(lake),
                   "--out", str(out)]
        if args.duckdb_memory_limit:
            command += ["--memory-limit", args.duckdb_memory_limit]
        measured, output = measure(step, step_records, lambda: run_checked(
            command, work / "logs" / f"{slug(step)}.out", args.timeout))
        info = json.loads(output.strip().splitlines()[-1])
        result["steps"].append({**measured, "engine": "duckdb", "command": command[1:],
                                "duckdb_settings": info["settings"]})
        save_partial()
        return measured

    def pyspark_reference(step: str, out: Path, step_records: int) -> dict:
        # the `local` target's driver memory and shuffle partitions, as read back from dbt
        command = [sys.executable, str(BENCH_DIR / "pyspark_reference.py"), "--lake", str(lake),
                   "--out", str(out)]
        for option, name in (("--driver-memory", "spark.driver.memory"),
                             ("--shuffle-partitions", "spark.sql.shuffle.partitions")):
            if settings.get(name):
                command += [option, str(settings[name])]
        measured, output = measure(step, step_records, lambda: run_checked(
            command, work / "logs" / f"{slug(step)}.out", args.timeout))
        info = json.loads(output.strip().splitlines()[-1])
        result["steps"].append({**measured, "engine": "pyspark", "command": command[1:],
                                "pyspark_settings": info["settings"],
                                "jvm_start_s": info["jvm_start_s"],
                                "compute_s": info["compute_s"]})
        save_partial()
        return measured

    def check(name: str, ref_dir: Path) -> None:
        checked = compare(ref_dir, work / "warehouse" / f"{SCHEMA}.db")
        result["checks"][name] = checked
        for table, entry in checked.items():
            state = "match" if entry["match"] else (
                f"MISMATCH ({entry['only_ours']} rows only in ours, "
                f"{entry['only_reference']} only in the reference)")
            print(f"  check {name} {table}: {entry['ours_rows']:,} rows, {state}", flush=True)

    measured, output = measure("generate", records, lambda: run_checked(
        [str(Path(sys.executable).with_name("sync-logs-dev")), "generate", "--out", str(lake),
         "--syncs", str(args.syncs), "--runs-per-sync", str(args.runs_per_sync),
         "--records", str(records), "--seed", str(args.seed), "--no-progress", "--json"],
        work / "logs" / "generate.out", args.timeout))
    result["lake"] = json.loads(output)
    result["steps"].append({**measured, "engine": "generator"})

    seed = run_dbt_subprocess(["seed"], target="local", work_dir=work / "seed",
                              project_dir=args.project_dir, dbt_vars=dbt_vars, env=env,
                              timeout=args.timeout)
    result["setup"] = {"dbt_seed_s": round(seed.seconds, 1)}
    if settings is None:
        settings = spark_settings(work, args.project_dir, dbt_vars, env, args.timeout)
    result["spark_settings"] = settings

    full = dbt("full build", ["run", *CANONICAL], records)
    ref_full = reference("reference full", work / "reference_full", records)
    check("full", work / "reference_full")
    py_full = pyspark_reference("pyspark reference full", work / "pyspark_full", records)
    check("full (pyspark)", work / "pyspark_full")
    if not args.no_marts:
        dbt("marts", ["run", *MARTS], records)

    started = time.monotonic()
    increment = append_run(lake, args.increment, syncs=args.syncs,
                           runs_per_sync=args.runs_per_sync, lake_records=records,
                           seed=args.seed)
    increment["seconds"] = round(time.monotonic() - started, 1)
    increment.pop("files")
    result["increment"] = increment

    inc = dbt("incremental build", ["run", *CANONICAL], args.increment)
    ref_inc = reference("reference incremental", work / "reference_incremental",
                        args.increment)
    check("incremental", work / "reference_incremental")
    py_inc = pyspark_reference("pyspark reference incremental", work / "pyspark_incremental",
                               args.increment)
    check("incremental (pyspark)", work / "pyspark_incremental")
    result["increment"]["op_types"] = increment_op_types(
        work / "reference_incremental", increment["sync_id"], increment["sync_run_id"])
    if not args.no_marts:
        dbt("incremental marts", ["run", *MARTS], args.increment)

    # The same build once more with nothing new in the lake: the cost of a build that does not
    # depend on data (starting dbt and Spark, listing the lake, each node's fixed cost).
    dbt("idle build", ["run", *CANONICAL], 0)

    if not args.no_tests:
        dbt("data tests", ["test", *CANONICAL], records + args.increment)
    if not args.no_marts and not args.no_tests:
        dbt("whole dbt build", ["build"], 0)

    result["ratios_to_duckdb"] = {
        "full build": round(full["wall_s"] / ref_full["wall_s"], 2),
        "incremental build": round(inc["wall_s"] / ref_inc["wall_s"], 2),
    }
    result["ratios_to_pyspark"] = {
        "full build": round(full["wall_s"] / py_full["wall_s"], 2),
        "incremental build": round(inc["wall_s"] / py_inc["wall_s"], 2),
    }
    result["finished_at"] = datetime.now(timezone.utc).isoformat(timespec="seconds")
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    return result


def increment_op_types(ref_dir: Path, sync_id: int, run_id: int) -> dict:
    """op_type counts of the new run's changelog rows (from the reference)."""
    import duckdb

    path = str((ref_dir / "changelog.parquet").resolve()).replace("'", "''")
    rows = duckdb.sql(
        f"select coalesce(op_type, 'null'), count(*) from read_parquet('{path}') "
        f"where sync_id = {int(sync_id)} and sync_run_id = {int(run_id)} group by all"
    ).fetchall()
    return dict(sorted(rows))


# --- the markdown report ------------------------------------------------------------------------


def _gib(value: int | None) -> str:
    return "" if value is None else f"{value / GIB:.2f} GiB"


def _size(records: int) -> str:
    if records >= 1_000_000 and records % 1_000_000 == 0:
        return f"{records // 1_000_000}M"
    if records >= 1_000 and records % 1_000 == 0:
        return f"{records // 1_000}k"
    return f"{records:,}"


def target_checks(results: dict[int, dict],
                  test_cost: dict | None = None) -> list[tuple[str, str]]:
    def step(records: int, name: str) -> dict | None:
        return next((s for s in results.get(records, {}).get("steps", [])
                     if s["step"] == name), None)

    def verdict(ok: bool) -> str:
        return "met" if ok else "**not met**"

    checks = []
    idle10 = step(10_000_000, "idle build")
    if idle10:
        checks.append(("idle build at 10M ≤ 20 s (JVM start included)",
                       f"{idle10['wall_s']} s: " + verdict(idle10["wall_s"] <= 20)))
    for records, limit in ((1_000_000, 1.5), (10_000_000, 1.2)):
        ratio = results.get(records, {}).get("ratios_to_pyspark", {}).get("full build")
        if step(records, "full build") and ratio is not None:
            duckdb = results[records].get("ratios_to_duckdb", {}).get("full build")
            checks.append((f"full build {_size(records)} ≤ {limit}× the PySpark reference",
                           f"{ratio}× ({step(records, 'full build')['wall_s']} s against "
                           f"{step(records, 'pyspark reference full')['wall_s']} s; DuckDB "
                           f"{duckdb}×): " + verdict(ratio <= limit)))
    inc10 = step(10_000_000, "incremental build")
    if inc10:
        checks.append(("incremental 100k over 10M ≤ 45 s", f"{inc10['wall_s']} s: "
                       + verdict(inc10["wall_s"] <= 45)))
    marts10 = step(10_000_000, "incremental marts")
    if marts10:
        checks.append(("incremental marts 100k over 10M ≤ 60 s (issue #17)",
                       f"{marts10['wall_s']} s: " + verdict(marts10["wall_s"] <= 60)))
    full_marts10, full10 = step(10_000_000, "marts"), step(10_000_000, "full build")
    if full_marts10 and full10:
        checks.append(("full marts 10M ≤ full canonical build 10M (issue #17)",
                       f"{full_marts10['wall_s']} s against {full10['wall_s']} s: "
                       + verdict(full_marts10["wall_s"] <= full10["wall_s"])))
    if test_cost and test_cost.get("data_tests_to_models") is not None:
        split = test_cost["thread_s"]
        ratio = test_cost["data_tests_to_models"]
        checks.append((
            f"data tests ≤ 25% of the models' thread-time, whole dbt build "
            f"{_size(test_cost['records'])} (issue #36)",
            f"{ratio:.0%} ({split['test']['nodes']} data tests {split['test']['seconds']} s, "
            f"{split['model']['nodes']} models {split['model']['seconds']} s): "
            + verdict(ratio <= 0.25)))
    ours = [(r, s) for r, res in sorted(results.items()) for s in res["steps"]
            if s.get("engine") == "dbt-spark"]
    if ours:
        worst = max(ours, key=lambda rs: rs[1]["peak_pss_bytes"])
        checks.append(("peak PSS < 6 GiB, every step of ours",
                       f"highest {_gib(worst[1]['peak_pss_bytes'])} ({_size(worst[0])} "
                       f"{worst[1]['step']}): " + verdict(worst[1]["peak_pss_bytes"] < 6 * GIB)))
    return checks


def timeline_lines(results: dict[int, dict]) -> list[str]:
    """Per size, the canonical nodes of the full and the incremental build on one time axis:
    seconds from the first node's start, so the chain of nodes that waited on each other shows."""
    lines = [
        "Canonical nodes of each build (dbt's run_results.json), as seconds from the first",
        "node's start: from → to (node's own seconds). Nodes run 4 at a time over 2 cores, so a",
        "node's seconds include waiting for a core. Before the first node: Python and dbt",
        "start, the partial parse, and Spark's JVM and Hive metastore (`startup`).",
    ]
    builds = ["full build", "incremental build", "idle build"]
    for records, data in sorted(results.items()):
        timed = {b: data.get("dbt_nodes", {}).get(b, {}) for b in builds}
        walls = {s["step"]: s["wall_s"] for s in data["steps"]}
        if not any(t.get("nodes") for t in timed.values()):
            continue
        lines += ["", f"**{_size(records)}**", "", "| node | " + " | ".join(builds) + " |",
                  "| --- |" + " --- |" * len(builds)]
        cells = []
        for b in builds:
            ends = [n.get("to_s", 0) for n in timed[b].get("nodes", {}).values()]
            startup = walls.get(b, 0) - max(ends, default=0) if b in walls else None
            cells.append(f"{startup:.1f} s" if startup is not None else "")
        lines.append("| startup (before the first node, and after the last) | "
                     + " | ".join(cells) + " |")
        names = sorted({n for t in timed.values() for n in t.get("nodes", {})},
                       key=lambda n: timed["full build"].get("nodes", {}).get(n, {})
                       .get("from_s", 1e9))
        for name in names:
            row = []
            for b in builds:
                node = timed[b].get("nodes", {}).get(name)
                row.append(f"{node['from_s']} → {node['to_s']} ({node['seconds']})"
                           if node and "from_s" in node else "")
            lines.append(f"| {name.split('.')[-1]} | " + " | ".join(row) + " |")
    return lines


def cpu_lines(results: dict[int, dict]) -> list[str]:
    """Per size and step of ours: CPU seconds by kind (threads of the process tree)."""
    lines = [
        "CPU seconds of each step's process tree by kind of thread, summed over threads (the",
        "machine has 2 cores: a step cannot use more than 2 × its wall time). JIT compiler:",
        "HotSpot compiling Spark's and the generated code to machine code; driver threads:",
        "planning and optimising each query, generating and compiling its Java code, the",
        "metastore, scheduling; Spark tasks: reading, hashing, shuffling, sorting and writing",
        "the data.",
        "",
        "| size | step | wall s | CPU s | " + " | ".join(CPU_KIND_ORDER) + " |",
        "| --- | --- | ---: | ---: | " + " | ".join("---:" for _ in CPU_KIND_ORDER) + " |",
    ]
    for records, data in sorted(results.items()):
        for s in data["steps"]:
            cpu = s.get("cpu_seconds")
            if not cpu or s.get("engine") != "dbt-spark":
                continue
            lines.append(
                f"| {_size(records)} | {s['step']} | {s['wall_s']} | {sum(cpu.values()):.1f} | "
                + " | ".join(f"{cpu.get(kind, 0):.1f}" for kind in CPU_KIND_ORDER) + " |"
            )
    return lines


def result_files(results_dir: Path) -> list[Path]:
    """The `scale_<N>.json` files of `results_dir`; not an archived `scale_<N>_<commit>.json`
    nor a `partial_scale_<N>.json`."""
    return sorted(path for path in results_dir.glob("scale_*.json")
                  if re.fullmatch(r"scale_\d+\.json", path.name))


def write_markdown(results_dir: Path) -> Path:
    results = {}
    for path in result_files(results_dir):
        data = json.loads(path.read_text())
        results[data["records"]] = data
    lines = [
        "# Scale benchmark",
        "",
        "Written by `bench/scale.py` (`make bench`) from the `scale_<N>.json` files next to this",
        "one; see the script's docstring for the steps. Embedded Spark with the `local` target of",
        "`profiles.example.yml` as is. Two references over the same parquet files and",
        "metadata.json recompute everything on every call (no incremental logic: that is what a",
        "user without this package runs): `bench/duckdb_reference.sql`, plain DuckDB SQL, and",
        "`bench/pyspark_reference.py`, the same rules as a plain PySpark job without dbt, in its",
        "own JVM with the `local` target's driver memory and shuffle partitions (its wall time",
        "includes starting the JVM, shown apart).",
        "",
    ]
    if results and max(results) < 1_000_000:
        lines += ["**Development run on small lakes, not the issue's sizes (1M, 3M, 10M).**", ""]
    lines += [
        "| size | step | wall s | records/s | peak PSS | peak RSS | load avg 1 min before → after "
        "| ours ÷ DuckDB | ours ÷ PySpark |",
        "| --- | --- | ---: | ---: | ---: | ---: | --- | ---: | ---: |",
    ]

    def times(ratio) -> str:
        return "" if ratio is None else f"{ratio}×"

    for records, data in sorted(results.items()):
        to_duckdb = data.get("ratios_to_duckdb", {})
        to_pyspark = data.get("ratios_to_pyspark", {})
        for s in data["steps"]:
            rate = f"{s['records_per_s']:,}" if s.get("records_per_s") else ""
            wall = s["wall_s"]
            if "jvm_start_s" in s:  # the PySpark reference: of which JVM start
                wall = f"{wall} (JVM start {s['jvm_start_s']})"
            lines.append(
                f"| {_size(records)} | {s['step']} | {wall} | {rate} | "
                f"{_gib(s['peak_pss_bytes'])} | {_gib(s['peak_rss_bytes'])} | "
                f"{s['load_average_before'][0]} → {s['load_average_after'][0]} | "
                f"{times(to_duckdb.get(s['step']))} | {times(to_pyspark.get(s['step']))} |"
            )
    lines += ["", "## Targets", "", TARGETS_MD, ""]
    cost_file = results_dir / "data_test_cost_1000000.json"
    test_cost = json.loads(cost_file.read_text()) if cost_file.exists() else None
    checks = target_checks(results, test_cost)
    if checks:
        lines += ["| target | result |", "| --- | --- |"]
        lines += [f"| {name} | {value} |" for name, value in checks]
    else:
        lines.append("Not measured here: the targets are stated at 1M and 10M records.")
    lines += ["", "## Checks against the references", ""]
    for records, data in sorted(results.items()):
        for phase, tables in data.get("checks", {}).items():
            parts = []
            for table, entry in tables.items():
                if entry["match"]:
                    parts.append(f"{table} {entry['ours_rows']:,} rows equal")
                else:
                    parts.append(f"{table} **differs**: {entry['only_ours']:,} rows only ours, "
                                 f"{entry['only_reference']:,} only the reference's")
            lines.append(f"* {_size(records)} {phase}: " + "; ".join(parts))
    lines += ["", "## Where the time goes", ""] + timeline_lines(results)
    lines += ["", "## Where the CPU goes", ""] + cpu_lines(results)
    lines += ["", "## The increment and the machine", ""]
    for records, data in sorted(results.items()):
        inc, m = data["increment"], data["machine"]
        spark = data.get("spark_settings", {})
        lines.append(
            f"* {_size(records)}: lake of {data['lake']['runs']} runs, {data['lake']['files']:,} "
            f"files, {data['lake']['bytes'] / 1e6:,.0f} MB; the new run "
            f"{inc['sync_run_id']} of sync {inc['sync_id']} ({inc['behavior']}, "
            f"{inc['earlier_records']:,} records in {inc['earlier_runs']} earlier runs): "
            f"op_types {inc.get('op_types')}. Machine: {m['cpus']} cores, "
            f"{m['memory_bytes'] / GIB:.0f} GiB, commit {(m['git_commit'] or '?')[:10]}"
            f"{' (uncommitted changes)' if m['git_dirty'] else ''}; Spark "
            f"{spark.get('spark.master')}, driver memory {spark.get('spark.driver.memory')}, "
            f"shuffle partitions {spark.get('spark.sql.shuffle.partitions')}."
        )
    lines += [
        "",
        "## How to read it",
        "",
        "* Each step is its own process, started as a user starts it; its wall time includes",
        "  starting Python, dbt's (partial) parse and Spark's JVM: every step starts from the",
        "  partial parse file of the untimed `dbt seed`, as a project's target/ keeps it",
        "  between runs. records/s is the step's records (the",
        "  lake for full builds, marts and tests; the new run for incremental steps) over wall",
        "  time.",
        "* Peak memory is sampled over the step's whole process tree: PSS every 2 s, RSS every",
        "  0.5 s (the sampler's own cost: settings.md, session 19). RSS summed over",
        "  processes counts a shared page once per process that maps it (Spark's Python workers",
        "  are forked from one daemon and share most of their pages; the JVM and Python map the",
        "  same libraries), so it overstates what the step takes from the machine. PSS divides",
        "  each shared page among the processes sharing it: summed over the tree it is the",
        "  memory the step actually occupies, and the target is checked on it.",
        "* The load average before and after each step shows whether other work shared the",
        "  machine (it has the cores listed above); read timings taken under load as rough.",
        "* Per-node dbt timings (run_results.json) of every dbt step are in the JSON",
        "  (`dbt_nodes`).",
        "",
    ]
    out = results_dir / "scale.md"
    out.write_text("\n".join(lines))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--records", type=int, nargs="+", default=[1_000_000, 3_000_000,
                                                                   10_000_000])
    parser.add_argument("--increment", type=int, default=100_000,
                        help="records of the new run of the incremental step")
    parser.add_argument("--syncs", type=int, default=20)
    parser.add_argument("--runs-per-sync", type=int, default=30)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--work", type=Path, default=PROJECT_DIR / "target" / "bench_scale",
                        help="work folder (lakes, warehouses, logs)")
    parser.add_argument("--results", type=Path, default=RESULTS)
    parser.add_argument("--project-dir", type=Path, default=PROJECT_DIR,
                        help="the dbt project to time (e.g. a `git archive` of a commit)")
    parser.add_argument("--project-commit", default=None,
                        help="the commit --project-dir was exported from, for the results")
    parser.add_argument("--no-tests", action="store_true", help="skip the data tests step")
    parser.add_argument("--no-marts", action="store_true", help="skip the marts step")
    parser.add_argument("--duckdb-memory-limit", default=None,
                        help="DuckDB memory_limit for the reference (default: DuckDB's own)")
    parser.add_argument("--timeout", type=float, default=4 * 3600, help="per step, seconds")
    parser.add_argument("--keep", action="store_true", help="keep the work folders")
    args = parser.parse_args(argv)
    if not DBT.exists():
        parser.error(f"{DBT} not found: run from the project's virtualenv")

    args.results.mkdir(parents=True, exist_ok=True)
    failed = False
    settings = None
    for records in args.records:
        try:
            result = bench_size(records, args, settings)
        except Exception as error:  # noqa: BLE001 - report, and still write what was measured
            print(f"{records:,} records: {error}", file=sys.stderr)
            failed = True
            continue
        settings = result["spark_settings"]
        path = args.results / f"scale_{records}.json"
        path.write_text(json.dumps(result, indent=2) + "\n")
        (args.results / f"partial_scale_{records}.json").unlink(missing_ok=True)
        print(f"wrote {path}", flush=True)
        if not all(t["match"] for c in result["checks"].values() for t in c.values()):
            print(f"{records:,} records: the package's tables differ from the reference "
                  f"(see {path})", file=sys.stderr)
            failed = True
    print(f"wrote {write_markdown(args.results)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
