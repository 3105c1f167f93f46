"""A class archive for the driver JVM (HotSpot's dynamic AppCDS), so that each build starts it
faster.

Every build starts a JVM that loads the same 20,000-odd classes of Spark, Hive and Derby. The
first JVM of a given Java, Spark and classpath writes them to an archive when it exits
(`-XX:ArchiveClassesAtExit`); later JVMs map it (`-XX:SharedArchiveFile`) and start about
4 s sooner (bench/results/settings.md, "What a build pays before its first record"). The
archive lives in the user's cache folder (`$XDG_CACHE_HOME/sync_logs/jvm`, else
`~/.cache/sync_logs/jvm`), named by what it must match.

Writing takes the exiting JVM half a minute, after dbt has ended: it goes to a file of its own
(`<name>.<pid>.part`), and a later start adopts it once the JVM's log says it was written. A
JVM that cannot use an archive (another Java build, another classpath, a damaged file) starts
as it would without one, silently. Profile field `jvm_class_archive: false` turns it off.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import time
from pathlib import Path

from dbt.adapters.sparksession.warehouse_lock import pid_alive

WRITTEN = "Written dynamic archive"
# The user's own choice of class data sharing wins.
USER_CHOICES = ("-Xshare", "SharedArchiveFile", "ArchiveClassesAtExit")
# Besides the JVM and Spark's jars, what an archive must match; the JVM checks the rest (its
# build, its flags) and starts without an archive that does not match.
MATCHED_SETTINGS = ("spark.driver.extraClassPath",)
# A JVM writes its archive in under a minute once its dbt process has ended.
QUIET_WRITER_SECONDS = 600


def cache_folder() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "sync_logs" / "jvm"


def java_executable() -> Path | None:
    """The `java` PySpark starts: $JAVA_HOME/bin/java, else the one on PATH."""
    home = os.environ.get("JAVA_HOME")
    found = os.path.join(home, "bin", "java") if home else shutil.which("java")
    return Path(found).resolve() if found and os.path.exists(found) else None


def archive_name(settings: dict[str, str]) -> str | None:
    """A name for the archive of this Java, Spark and classpath; None without a `java`."""
    from pyspark.find_spark_home import _find_spark_home

    java = java_executable()
    if java is None:
        return None
    jars = Path(_find_spark_home()) / "jars"
    digest = hashlib.sha256()
    for part in (str(java), str(java.stat().st_mtime_ns), str(jars.resolve())):
        digest.update(part.encode() + b"\0")
    for jar in sorted(os.listdir(jars)) if jars.is_dir() else []:
        digest.update(jar.encode() + b"\0")
    for setting in MATCHED_SETTINGS:
        digest.update(f"{setting}={settings.get(setting, '')}".encode() + b"\0")
    return f"spark-driver-{digest.hexdigest()[:16]}"


def adopt_written(folder: Path, name: str) -> bool:
    """Renames the archive a JVM finished writing (its log says so) to `<name>.jsa` and removes
    what JVMs that died while writing left; returns whether a JVM may still be writing one
    (its dbt process lives, or its files changed lately)."""
    writing = False
    for log in folder.glob(f"{name}.*.log"):
        part = log.with_suffix(".part")
        pid = log.suffixes[0].lstrip(".")
        with contextlib.suppress(OSError):
            with log.open("rb") as text:
                text.seek(max(log.stat().st_size - 4096, 0))
                finished = WRITTEN.encode() in text.read()
            if finished and not (folder / f"{name}.jsa").exists():
                os.replace(part, folder / f"{name}.jsa")
            elif not finished:
                changed = max(path.stat().st_mtime for path in (log, part) if path.exists())
                if (pid.isdigit() and pid_alive(int(pid))) or (
                    time.time() - changed < QUIET_WRITER_SECONDS
                ):
                    writing = True
                    continue
            part.unlink(missing_ok=True)
            log.unlink(missing_ok=True)
    return writing


def archive_options(settings: dict[str, str]) -> tuple[str, bool]:
    """JVM options for the driver that `settings` (Spark's) configure: use the archive when
    there is one, else write it at exit. Returns the options and whether this JVM writes one."""
    java_options = settings.get("spark.driver.extraJavaOptions", "")
    if any(choice in java_options for choice in USER_CHOICES):
        return "", False
    name = archive_name(settings)
    if name is None:
        return "", False
    folder = cache_folder()
    if any(character.isspace() or character == ":" for character in str(folder)):
        return "", False  # JVM options are split at spaces, -Xlog's at colons
    try:
        folder.mkdir(parents=True, exist_ok=True)
        writing = adopt_written(folder, name)
    except OSError:
        return "", False
    archive = folder / f"{name}.jsa"
    if archive.exists():
        return f"-XX:SharedArchiveFile={archive} -Xlog:cds=off -Xlog:cds+dynamic=off", False
    if writing:  # one writer at a time: each costs its JVM half a minute at exit
        return "", False
    part = folder / f"{name}.{os.getpid()}.part"
    log = part.with_suffix(".log")
    return (
        f"-XX:ArchiveClassesAtExit={part} -Xlog:cds=off -Xlog:cds+dynamic=off "
        f"-Xlog:cds+dynamic=info:file={log}",
        True,
    )


def use_class_archive(settings: dict[str, str]) -> None:
    """Adds the archive's options to the driver JVM options of `settings` (the profile's
    `server_side_parameters`, before the JVM starts; once: a second call finds them)."""
    options, _ = archive_options(settings)
    if options:
        current = settings.get("spark.driver.extraJavaOptions", "")
        settings["spark.driver.extraJavaOptions"] = f"{current} {options}".strip()


def writes_class_archive(settings: dict[str, str]) -> bool:
    """Whether the JVM these settings start writes an archive when it exits."""
    return "ArchiveClassesAtExit" in settings.get("spark.driver.extraJavaOptions", "")
