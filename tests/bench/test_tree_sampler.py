"""bench/scale.py's TreeSampler on a child process that holds 200 MiB for a while: its peak PSS
and RSS, the bound from each process's own peak RSS, and its CPU by kind; and the result files
that scale.md is written from."""

from __future__ import annotations

import importlib.util
import resource
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench"
spec = importlib.util.spec_from_file_location("scale", BENCH / "scale.py")
scale = importlib.util.module_from_spec(spec)
spec.loader.exec_module(scale)

MIB = 2**20
HOLD = (
    "import time\n"
    "held = bytearray(200 * 2**20)\n"
    "for i in range(0, len(held), 4096): held[i] = 1\n"  # touch every page: resident
    "end = time.monotonic() + 1.5\n"
    "while time.monotonic() < end: pass\n"  # busy: CPU to count
)


def test_sampler_sees_the_child_s_peak_memory_and_cpu():
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    with scale.TreeSampler(interval=0.1, pss_every=2, cpu_every=2) as sampler:
        subprocess.run([sys.executable, "-c", HOLD], check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    child_cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    assert sampler.samples >= 10
    assert sampler.peak_pss >= 200 * MIB
    assert sampler.peak_rss >= sampler.peak_pss
    assert sampler.peak_rss_bound >= sampler.peak_rss
    assert sampler.peak_rss_bound < 1024 * MIB
    # the CPU after the last reading (at most two intervals) is missed
    sampled_cpu = sampler.cpu_seconds()["dbt and model code (Python)"]
    assert child_cpu - 0.5 <= sampled_cpu <= child_cpu + 0.1
    assert sampled_cpu > 0


def test_scale_md_reads_the_results_of_each_size_alone(tmp_path):
    for name in ["scale_1000000.json", "scale_10000000.json", "scale_1000000_0f7333a.json",
                 "partial_scale_3000000.json", "scale.md"]:
        (tmp_path / name).write_text("{}")
    assert [path.name for path in scale.result_files(tmp_path)] == [
        "scale_1000000.json", "scale_10000000.json",
    ]
