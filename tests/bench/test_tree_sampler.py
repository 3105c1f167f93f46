"""bench/scale.py's TreeSampler on a child process that holds 200 MiB for a while: its peak PSS
and RSS, the bound from each process's own peak RSS, and its CPU by kind; and the result files
that scale.md is written from."""

from __future__ import annotations

import importlib.util
import json
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
    "end = time.monotonic() + 2\n"
    "while time.monotonic() < end: pass\n"  # busy: CPU to count
)
# In a process of its own, whose only descendant is the child: a test worker may hold a JVM.
SAMPLE = """
import importlib.util, json, resource, subprocess, sys
spec = importlib.util.spec_from_file_location("scale", sys.argv[1])
scale = importlib.util.module_from_spec(spec)
spec.loader.exec_module(scale)
before = resource.getrusage(resource.RUSAGE_CHILDREN)
# every reading at each sample: on a loaded machine the sampler's thread runs seldom
with scale.TreeSampler(interval=0.1, pss_every=1, cpu_every=1) as sampler:
    subprocess.run([sys.executable, "-c", sys.argv[2]], check=True)
after = resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({
    "samples": sampler.samples, "pss": sampler.peak_pss, "rss": sampler.peak_rss,
    "bound": sampler.peak_rss_bound, "cpu": sampler.cpu_seconds(),
    "child_cpu": after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime,
}))
"""


def test_sampler_sees_the_child_s_peak_memory_and_cpu():
    out = subprocess.run([sys.executable, "-c", SAMPLE, str(BENCH / "scale.py"), HOLD],
                         check=True, capture_output=True, text=True).stdout
    sampled = json.loads(out)
    assert sampled["samples"] >= 2
    assert sampled["pss"] >= 200 * MIB
    assert sampled["rss"] >= sampled["pss"]
    assert sampled["bound"] >= sampled["rss"]
    assert sampled["bound"] < 1024 * MIB
    # the CPU after the last reading is missed: a sample's worth, a fraction of 2 s busy
    child_cpu = sampled["child_cpu"]
    assert child_cpu / 2 <= sampled["cpu"]["dbt and model code (Python)"] <= child_cpu + 0.1


def test_scale_md_reads_the_results_of_each_size_alone(tmp_path):
    for name in ["scale_1000000.json", "scale_10000000.json", "scale_1000000_0f7333a.json",
                 "partial_scale_3000000.json", "scale.md"]:
        (tmp_path / name).write_text("{}")
    assert [path.name for path in scale.result_files(tmp_path)] == [
        "scale_1000000.json", "scale_10000000.json",
    ]
