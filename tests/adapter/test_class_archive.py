"""The driver JVM's class archive (dbt/adapters/sparksession/class_archive.py), with the machine's
own `java`: the first JVM writes it as it exits, a later start adopts and maps it; one writer at a
time; what a killed writer left is removed; the user's own class data sharing options win."""

from __future__ import annotations

import os
import shlex
import subprocess
import time

import pytest

from dbt.adapters.sparksession import class_archive

SETTINGS = {"spark.driver.memory": "4g", "spark.driver.extraJavaOptions": "-Dsome.option=1"}


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    return tmp_path / "sync_logs" / "jvm"


def java(options: str, *extra: str) -> subprocess.CompletedProcess:
    command = [str(class_archive.java_executable()), *shlex.split(options), *extra, "-version"]
    return subprocess.run(command, capture_output=True, text=True, check=False)


def test_the_first_jvm_writes_the_archive_and_the_next_start_maps_it(cache):
    options, writes = class_archive.archive_options(SETTINGS)
    name = class_archive.archive_name(SETTINGS)
    assert writes
    assert f"-XX:ArchiveClassesAtExit={cache / f'{name}.{os.getpid()}.part'}" in options
    assert java(options).returncode == 0
    assert (cache / f"{name}.{os.getpid()}.part").exists()

    options, writes = class_archive.archive_options(SETTINGS)
    assert not writes
    assert options == (
        f"-XX:SharedArchiveFile={cache / f'{name}.jsa'} -Xlog:cds=off -Xlog:cds+dynamic=off"
    )
    assert sorted(path.name for path in cache.iterdir()) == [f"{name}.jsa"]
    # -Xshare:on: a JVM that cannot map the archive fails instead of starting without it
    mapped = java(options, "-Xshare:on")
    assert mapped.returncode == 0, mapped.stderr
    assert "sharing" in mapped.stderr


def test_one_writer_at_a_time_and_a_dead_writers_files_are_removed(cache):
    name = class_archive.archive_name(SETTINGS)
    cache.mkdir(parents=True)
    writing = cache / f"{name}.{os.getpid()}.log"  # this process lives: its JVM may write
    writing.write_text("")
    assert class_archive.archive_options(SETTINGS) == ("", False)

    writing.unlink()
    dead_pid = max_pid_plus_one()
    left = [cache / f"{name}.{dead_pid}.log", cache / f"{name}.{dead_pid}.part"]
    for path in left:
        path.write_text("half an archive")
    an_hour_ago = time.time() - 3600
    for path in left:
        os.utime(path, (an_hour_ago, an_hour_ago))
    options, writes = class_archive.archive_options(SETTINGS)
    assert writes and "ArchiveClassesAtExit" in options
    assert not any(path.exists() for path in left)


def max_pid_plus_one() -> int:
    """A pid no process has: above the kernel's largest."""
    with open("/proc/sys/kernel/pid_max") as limit:
        return int(limit.read()) + 1


@pytest.mark.parametrize("choice", ["-Xshare:off", "-XX:SharedArchiveFile=/mine.jsa"])
def test_the_users_own_class_data_sharing_options_win(cache, choice):
    settings = {"spark.driver.extraJavaOptions": f"-Dx=1 {choice}"}
    assert class_archive.archive_options(settings) == ("", False)
    class_archive.use_class_archive(settings)
    assert settings == {"spark.driver.extraJavaOptions": f"-Dx=1 {choice}"}


def test_the_options_are_added_once(cache):
    settings = dict(SETTINGS)
    class_archive.use_class_archive(settings)
    class_archive.use_class_archive(settings)
    options = settings["spark.driver.extraJavaOptions"]
    assert options.startswith("-Dsome.option=1 -XX:ArchiveClassesAtExit=")
    assert options.count("ArchiveClassesAtExit") == 1
    assert class_archive.writes_class_archive(settings)
