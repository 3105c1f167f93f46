"""Reuse of dbt's saved parse across target folders (repository tooling: tests, bench).

dbt parses the whole project again (several seconds, most of it the Jinja of some 600 macros)
whenever its target folder holds no saved parse, `partial_parse.msgpack`. The test suite gives
most builds a target folder of their own. With `SYNC_LOGS_DBT_PARSE_CACHE` naming a folder,
an invocation whose target folder has no saved parse starts from the last one saved for the
same project, profiles, target and vars. dbt still checks it as it checks its own (dbt
version, vars, profile, every file's checksum) and parses again what differs, so a stale entry
costs time, never correctness."""

import hashlib
import os
import shutil
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

CACHE_ENV = "SYNC_LOGS_DBT_PARSE_CACHE"
SAVED_PARSE = "partial_parse.msgpack"
PARSE_OPTIONS = ("--target", "-t", "--profile")


@contextmanager
def saved_parse_reused(target_path: Path, key: Sequence[str]) -> Iterator[None]:
    """Around one dbt invocation whose `--target-path` is `target_path`: seed the saved parse
    from the cache entry of `key` (the strings the parse depends on), then store dbt's."""
    cache = os.environ.get(CACHE_ENV)
    if not cache:
        yield
        return
    entry = Path(cache) / f"{hashlib.sha256(chr(0).join(key).encode()).hexdigest()[:24]}.msgpack"
    saved = target_path / SAVED_PARSE
    if entry.exists() and not saved.exists():
        target_path.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(entry, saved)
    try:
        yield
    finally:
        if saved.exists():
            entry.parent.mkdir(parents=True, exist_ok=True)
            partial = entry.with_name(f"{entry.name}.{os.getpid()}.tmp")
            shutil.copyfile(saved, partial)
            os.replace(partial, entry)  # atomic: xdist workers share the folder


def parse_key(
    project_dir: Path, profiles_dir: Path, args: Sequence[str], dbt_vars: str
) -> list[str]:
    """What a saved parse depends on besides the project's files (which dbt checks itself)."""
    profiles = profiles_dir / "profiles.yml"
    return [
        str(project_dir),
        profiles.read_text() if profiles.exists() else "",
        os.environ.get("SYNC_LOGS_TARGET", ""),
        *[
            f"{flag} {value}"
            for flag, value in zip(args, args[1:], strict=False)
            if flag in PARSE_OPTIONS
        ],
        dbt_vars,
    ]
