"""The embedded warehouse's lock (dbt/adapters/sparksession/warehouse_lock.py), held by child
processes: a live holder makes a second taker wait or fail naming it; a SIGKILLed holder's lock
is taken over once its JVM is gone. The whole builds: tests/dbt/test_crash_and_lock.py."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from dbt.adapters.sparksession.warehouse_lock import LOCK_FILE, WarehouseLock, WarehouseLocked

HOLDER = """
import sys, time
from dbt.adapters.sparksession.warehouse_lock import WarehouseLock
lock = WarehouseLock(sys.argv[1])
lock.acquire(0, "invocation-of-the-child")
lock.note_jvm(int(sys.argv[3]) if len(sys.argv) > 3 else None, len(sys.argv) > 4)
print("held", flush=True)
time.sleep(float(sys.argv[2]))
lock.release()
"""

JVM_AFTER_BUILD = """
import sys, time
from pathlib import Path
while not Path(sys.argv[1]).exists():
    time.sleep(0.05)
time.sleep(1.5)
"""


def holder(
    warehouse: Path, seconds: float, jvm_pid: int | None = None, writes_archive: bool = False
) -> subprocess.Popen:
    """A child process that takes the lock, then holds it for `seconds` and ends normally;
    `writes_archive`: its JVM writes a class archive as it exits."""
    args = [sys.executable, "-c", HOLDER, str(warehouse), str(seconds)]
    args += [str(jvm_pid)] if jvm_pid else []
    args += ["writes-archive"] if writes_archive else []
    child = subprocess.Popen(args, stdout=subprocess.PIPE, text=True)
    assert child.stdout.readline().strip() == "held"
    child.stdout.close()  # the child prints nothing more
    return child


def taken(warehouse: Path, wait_seconds: float) -> tuple[WarehouseLock, list[str]]:
    lines: list[str] = []
    lock = WarehouseLock(warehouse)
    lock.acquire(wait_seconds, "invocation-of-the-test", lines.append)
    return lock, lines


def test_a_live_holder_makes_a_taker_that_does_not_wait_fail_naming_it(tmp_path):
    child = holder(tmp_path, 30)
    try:
        with pytest.raises(WarehouseLocked) as error:
            taken(tmp_path, 0)
    finally:
        child.kill()
        child.wait()
    assert (f"is in use by another build (pid {child.pid} on host {socket.gethostname()}, "
            f"started at ") in str(error.value)
    assert "dbt invocation invocation-of-the-child); gave up at once" in str(error.value)
    assert "sync_logs_lock_wait_seconds" in str(error.value)


def test_a_taker_waits_for_a_holder_that_ends(tmp_path):
    child = holder(tmp_path, 1.5)
    started = time.monotonic()
    lock, lines = taken(tmp_path, 30)
    assert child.wait() == 0
    assert time.monotonic() - started >= 1
    assert f"in use by another build (pid {child.pid} " in lines[0]
    assert lines[-1].endswith("is free; this build goes on")
    assert json.loads((tmp_path / LOCK_FILE).read_text())["pid"] == os.getpid()
    lock.release()
    assert (tmp_path / LOCK_FILE).read_text() == ""


def test_a_killed_holder_is_taken_over_once_its_jvm_is_gone(tmp_path):
    jvm = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    child = holder(tmp_path, 30, jvm_pid=jvm.pid)
    child.send_signal(signal.SIGKILL)
    child.wait()
    try:
        with pytest.raises(WarehouseLocked, match=f"its JVM, pid {jvm.pid}, still runs"):
            taken(tmp_path, 1)
    finally:
        jvm.kill()
        jvm.wait()
    lock, lines = taken(tmp_path, 0)
    assert lines == [
        f"sync_logs: took over the lock of warehouse {tmp_path.resolve()} from a build that "
        f"ended without releasing it (pid {child.pid} on host {socket.gethostname()}, "
        + lines[0].split(f"{socket.gethostname()}, ", 1)[1]
    ]
    assert "dbt invocation invocation-of-the-child): its process is gone" in lines[0]
    lock.release()


def test_a_taker_waits_for_the_jvm_that_writes_its_class_archive_after_its_build(tmp_path):
    # the JVM ends 1.5 s after the build has (however slowly the build's process starts)
    build_ended = tmp_path / "build_ended"
    jvm = subprocess.Popen([sys.executable, "-c", JVM_AFTER_BUILD, str(build_ended)])
    threading.Thread(target=jvm.wait).start()  # reaped as it ends, as init reaps a real JVM
    child = holder(tmp_path, 0, jvm_pid=jvm.pid, writes_archive=True)
    assert child.wait() == 0
    build_ended.touch()
    left = json.loads((tmp_path / LOCK_FILE).read_text())
    assert (left["jvm_pid"], left["writes_class_archive"], left["ended"]) == (jvm.pid, True, True)
    lock, lines = taken(tmp_path, 30)
    assert jvm.poll() == 0  # taken once the JVM had ended
    assert lines == [
        f"sync_logs: waiting for the JVM of the previous build (pid {jvm.pid}) to write its "
        "class archive and end"
    ]
    lock.release()
    assert (tmp_path / LOCK_FILE).read_text() == ""


def test_the_lock_is_taken_once_per_process(tmp_path):
    lock, _ = taken(tmp_path, 0)
    lock.acquire(0, "again")
    assert json.loads((tmp_path / LOCK_FILE).read_text())["invocation_id"] == (
        "invocation-of-the-test"
    )
    lock.release()


def test_a_second_copy_of_the_adapter_in_the_same_process_does_not_wait_for_the_first(tmp_path):
    # sqlfluff's dbt templater loads the adapter again: a new lock object, a new file descriptor
    first, _ = taken(tmp_path, 0)
    WarehouseLock(tmp_path).acquire(0, "a second copy")
    assert json.loads((tmp_path / LOCK_FILE).read_text())["invocation_id"] == (
        "invocation-of-the-test"
    )
    first.release()
