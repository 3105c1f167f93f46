"""The hand-made lake on the newest supported Python (3.13), the package installed as users
install it: `tests/newest_python.sh` (a fresh uv virtualenv, the package built from this
checkout and installed non-editable with its base dependencies and constraints.txt, then
tests/dbt/test_canonical_handmade.py in it). Run as a test of the suite, so that it shares
the CPUs with the other modules instead of running after them."""

from __future__ import annotations

import re
import subprocess

from consumer_harness import REPO, isolated_env

TIMEOUT = 900  # seconds: a hang fails the test instead of blocking CI


def test_handmade_lake_builds_on_the_newest_python():
    done = subprocess.run(
        ["bash", str(REPO / "tests" / "newest_python.sh")],
        cwd=REPO, env=isolated_env(), capture_output=True, text=True, timeout=TIMEOUT,
    )
    output = (done.stdout + done.stderr)[-8000:]
    assert done.returncode == 0, f"tests/newest_python.sh exited {done.returncode}:\n{output}"
    summaries = re.findall(r"^=+ (.*) in [\d.]+s", done.stdout, re.MULTILINE)
    assert summaries, output
    # every test of the module passed: none failed, skipped or deselected
    assert re.fullmatch(r"\d+ passed(, \d+ warnings?)?", summaries[-1]), summaries[-1]
    assert "Python 3.13" in done.stdout, done.stdout[-2000:]
