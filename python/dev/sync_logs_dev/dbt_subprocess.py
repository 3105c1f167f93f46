"""Runs `dbt` in a subprocess against a target of profiles.example.yml.

A dbt process that drives a Spark cluster (or talks to a Thrift server, or Databricks) must
not share a process with an embedded SparkSession: the in-process driver is one per JVM.

Repository tooling (cluster tests, benchmark): the dbt project is an argument; its default is
the checkout (`sync_logs_dev.checkout.checkout_dir()`, a clear error when there is none).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from sync_logs_dev.checkout import checkout_dir
from sync_logs_dev.dbt_parse_cache import parse_key, saved_parse_reused

DBT = Path(sys.executable).with_name("dbt")


class DbtFailed(RuntimeError):
    pass


@dataclass
class DbtRun:
    command: list[str]
    returncode: int
    output: str
    seconds: float

    def tail(self, lines: int = 60) -> str:
        return "\n".join(self.output.splitlines()[-lines:])


def profiles_dir(folder: Path, project_dir: Path | None = None) -> Path:
    """A profiles folder made from the project's profiles.example.yml, as a user would make
    one (project_dir: default the checkout)."""
    source = (project_dir or checkout_dir()) / "profiles.example.yml"
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source, folder / "profiles.yml")
    return folder


def run_dbt_subprocess(
    args: list[str],
    *,
    target: str,
    work_dir: Path,
    project_dir: Path | None = None,
    dbt_vars: Mapping[str, object] | None = None,
    env: Mapping[str, str] | None = None,
    check: bool = True,
    timeout: float = 900,
    profiles: Path | None = None,
) -> DbtRun:
    """`dbt <args> --target <target>`, its profiles, target and log paths under `work_dir`;
    the output is also written to work_dir/dbt-<command>-<target>.out. `profiles`: a folder
    holding profiles.yml to use instead of the checkout's profiles.example.yml. `project_dir`:
    the dbt project (default the checkout)."""
    project_dir = (project_dir or checkout_dir()).resolve()
    work_dir.mkdir(parents=True, exist_ok=True)
    profiles = profiles or profiles_dir(work_dir / "profiles")
    vars_json = json.dumps(dict(dbt_vars), sort_keys=True) if dbt_vars else ""
    command = [
        str(DBT), *args,
        "--target", target,
        "--project-dir", str(project_dir),
        "--profiles-dir", str(profiles),
        "--log-path", str(work_dir / "logs"),
    ]
    if args[0] != "deps":  # `dbt deps` has no --target-path
        command += ["--target-path", str(work_dir / "dbt")]
    if dbt_vars:
        command += ["--vars", vars_json]
    full_env = {**os.environ, "SYNC_LOGS_TARGET": target, **(env or {})}
    key = parse_key(project_dir, profiles, [*args, "--target", target], vars_json)
    started = time.monotonic()
    try:
        with saved_parse_reused(work_dir / "dbt", key):
            done = subprocess.run(
                command, env=full_env, cwd=work_dir, stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT, text=True, timeout=timeout,
            )
        output, returncode = done.stdout, done.returncode
    except subprocess.TimeoutExpired as error:
        output = error.stdout.decode() if isinstance(error.stdout, bytes) else error.stdout or ""
        output += f"\n(timed out after {timeout:.0f}s)"
        returncode = -1
    run = DbtRun(command, returncode, output, time.monotonic() - started)
    (work_dir / f"dbt-{args[0]}-{target}.out").write_text(output)
    if check and returncode != 0:
        raise DbtFailed(
            f"`dbt {' '.join(args)} --target {target}` exited {returncode} after "
            f"{run.seconds:.0f}s:\n{run.tail()}"
        )
    return run
