"""One build at a time per embedded warehouse.

The Hive metastore of the `local` and `cluster` targets is an embedded Derby database in the
warehouse folder, which one JVM at a time may open: a second build would die with Derby's
"Failed to start database 'metastore_db'", or, without the metastore, interleave its writes with
the first one's. So the adapter takes `sync_logs_build.lock` in the warehouse folder (an
exclusive `flock`) before its SparkSession starts, and holds it until the process ends. The
file names its holder: host, pid, start time, dbt invocation id, and the pid of the holder's
JVM, which outlives a killed holder by a moment and holds Derby until it goes.

A holder that ends normally empties the file, unless its JVM writes a class archive as it
exits (`class_archive`): the file then says so, and the next build waits for that JVM. A
SIGKILLed holder cannot: the kernel releases its `flock`, and the next build finds the file
still naming it, waits for its JVM to end, and says that it took the lock over.
"""

from __future__ import annotations

import atexit
import errno
import fcntl
import json
import os
import socket
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

LOCK_FILE = "sync_logs_build.lock"
POLL_SECONDS = 0.5


class WarehouseLocked(RuntimeError):
    pass


def describe(holder: dict) -> str:
    return (
        f"pid {holder.get('pid')} on host {holder.get('host')}, started at "
        f"{holder.get('started_at')}, dbt invocation {holder.get('invocation_id')}"
    )


def pid_alive(pid: object) -> bool:
    if not isinstance(pid, int) or pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except OSError as error:
        return error.errno == errno.EPERM
    return True


def is_this_process(holder: dict) -> bool:
    """Whether `holder` is this process (a tool such as sqlfluff's dbt templater may load the
    adapter twice, each copy with its own registry of locks)."""
    return holder.get("pid") == os.getpid() and holder.get("host") == socket.gethostname()


def read_holder(fd: int) -> dict:
    os.lseek(fd, 0, os.SEEK_SET)
    text = os.read(fd, 65536).decode("utf-8", errors="replace").strip()
    if not text:
        return {}
    try:
        holder = json.loads(text)
    except ValueError:
        return {"pid": None, "host": "?", "started_at": "?", "invocation_id": text[:80]}
    return holder if isinstance(holder, dict) else {}


def write_holder(fd: int, holder: dict) -> None:
    os.ftruncate(fd, 0)
    os.lseek(fd, 0, os.SEEK_SET)
    os.write(fd, json.dumps(holder, sort_keys=True).encode())
    os.fsync(fd)


class WarehouseLock:
    """The lock of one warehouse folder, held by this process (`acquire` is idempotent)."""

    def __init__(self, warehouse: Path) -> None:
        self.path = Path(warehouse).resolve() / LOCK_FILE
        self.fd: int | None = None
        self.holder: dict = {}

    def acquire(
        self, wait_seconds: float, invocation_id: str, log: Callable[[str], None] = print
    ) -> None:
        """Takes the lock, waiting up to `wait_seconds` for a live holder (0: fail at once);
        raises WarehouseLocked naming the holder when it is still held."""
        if self.fd is not None:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        deadline = time.monotonic() + max(wait_seconds, 0)
        waiting = False
        try:
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    holder = read_holder(fd)
                    if is_this_process(holder):  # taken by an earlier import of this module
                        os.close(fd)
                        return
                    if time.monotonic() >= deadline:
                        raise WarehouseLocked(self.held_message(holder, wait_seconds)) from None
                    if not waiting:
                        log(f"sync_logs: warehouse {self.path.parent} is in use by another "
                            f"build ({describe(holder)}); waiting up to {wait_seconds:g} s")
                        waiting = True
                    time.sleep(POLL_SECONDS)
            left = read_holder(fd)
            if left.get("ended"):
                if pid_alive(left.get("jvm_pid")):
                    log(f"sync_logs: waiting for the JVM of the previous build (pid "
                        f"{left.get('jvm_pid')}) to write its class archive and end")
                self.wait_for_jvm(left, deadline, wait_seconds)
            elif left:
                self.wait_for_jvm(left, deadline, wait_seconds)
                log(f"sync_logs: took over the lock of warehouse {self.path.parent} from a build "
                    f"that ended without releasing it ({describe(left)}): its process is gone")
            elif waiting:
                log(f"sync_logs: warehouse {self.path.parent} is free; this build goes on")
        except BaseException:
            os.close(fd)
            raise
        self.fd = fd
        self.holder = {
            "host": socket.gethostname(),
            "pid": os.getpid(),
            "started_at": datetime.now(UTC).isoformat(timespec="seconds"),
            "invocation_id": invocation_id,
        }
        write_holder(fd, self.holder)
        atexit.register(self.release)

    def wait_for_jvm(self, left: dict, deadline: float, wait_seconds: float) -> None:
        """A killed holder's JVM ends when it sees its parent gone, and holds Derby until then."""
        if left.get("host") != socket.gethostname():
            return
        while pid_alive(left.get("jvm_pid")):
            if time.monotonic() >= deadline:
                raise WarehouseLocked(
                    f"{self.held_message(left, wait_seconds)} (its process is gone, its JVM, "
                    f"pid {left.get('jvm_pid')}, still runs)"
                )
            time.sleep(POLL_SECONDS)

    def held_message(self, holder: dict, wait_seconds: float) -> str:
        waited = f"after waiting {wait_seconds:g} s" if wait_seconds > 0 else "at once"
        return (
            f"sync_logs: warehouse {self.path.parent} is in use by another build "
            f"({describe(holder)}); gave up {waited}. Two builds cannot share an embedded "
            f"warehouse: wait for that build to end, or set var sync_logs_lock_wait_seconds "
            f"(profile field lock_wait_seconds) to wait longer. Lock file: {self.path}"
        )

    def note_jvm(self, jvm_pid: int | None, writes_class_archive: bool = False) -> bool:
        """Names the holder's JVM in the file; returns whether it was not named yet."""
        if self.fd is None or not jvm_pid or self.holder.get("jvm_pid") == jvm_pid:
            return False
        self.holder["jvm_pid"] = jvm_pid
        if writes_class_archive:
            self.holder["writes_class_archive"] = True
        write_holder(self.fd, self.holder)
        return True

    def release(self) -> None:
        """Empties the file, unless this build's JVM writes its class archive once this process
        has ended, holding Derby meanwhile: then the next build waits for that JVM."""
        if self.fd is None:
            return
        if self.holder.get("writes_class_archive"):
            write_holder(self.fd, {**self.holder, "ended": True})
        else:
            os.ftruncate(self.fd, 0)
        fcntl.flock(self.fd, fcntl.LOCK_UN)
        os.close(self.fd)
        self.fd = None


_locks: dict[Path, WarehouseLock] = {}


def warehouse_lock(warehouse: Path) -> WarehouseLock:
    """This process's lock of `warehouse` (one object per folder)."""
    lock = WarehouseLock(warehouse)
    return _locks.setdefault(lock.path, lock)
