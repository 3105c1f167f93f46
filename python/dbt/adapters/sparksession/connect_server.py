"""A warm engine: a Spark Connect server with a target's settings, for builds to reach.

    python -m dbt.adapters.sparksession.connect_server --profiles-dir . --target local

runs PySpark's Spark Connect server (`sbin/start-connect-server.sh --wait`, in the foreground)
with the target's `server_side_parameters` (master, driver memory, warehouse folder and its Derby
metastore, shuffle partitions...), and holds that warehouse's lock while it runs. A target whose
`server_side_parameters` hold `spark.remote: sc://localhost:<port>` then builds in the server's
JVM: no JVM start, class loading or cold JIT per build. Needs PySpark's `connect` extra
(`pip install "sync-logs[session,connect]"`). Ctrl-C or SIGTERM stops the server and frees
the warehouse.
"""

import argparse
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pyspark
from dbt.config.profile import read_profile
from dbt.config.renderer import ProfileRenderer
from dbt_common.context import set_invocation_context

from dbt.adapters.sparksession.connections import embedded_warehouse, remote_url
from dbt.adapters.sparksession.warehouse_lock import WarehouseLocked, warehouse_lock

DEFAULT_PORT = 15002
# spark-submit options for settings that must be known before the JVM starts
SUBMIT_OPTIONS = {"spark.master": "--master", "spark.driver.memory": "--driver-memory"}


def target_settings(profiles_dir: Path, profile: str, target: str | None) -> dict:
    """The `server_side_parameters` of `target` (the profile's default target when None),
    rendered as dbt renders them (env_var, var defaults)."""
    set_invocation_context(os.environ)  # what env_var() reads
    profiles = read_profile(str(profiles_dir))
    if profile not in profiles:
        raise SystemExit(f"no profile {profile!r} in {profiles_dir}/profiles.yml")
    renderer = ProfileRenderer({})
    outputs = profiles[profile].get("outputs", {})
    name = target or renderer.render_value(profiles[profile].get("target", "default"))
    if name not in outputs:
        raise SystemExit(f"no target {name!r} in profile {profile!r} (targets: {sorted(outputs)})")
    settings = renderer.render_data(outputs[name]).get("server_side_parameters") or {}
    if remote_url(settings) is not None:
        raise SystemExit(f"target {name!r} reaches a server itself (spark.remote): start the "
                         "server with the target whose settings it should run with")
    return {key: str(value) for key, value in settings.items()}


def server_command(settings: dict, port: int) -> list[str]:
    """PySpark's start-connect-server.sh in the foreground with `settings`."""
    command = [str(Path(pyspark.__file__).parent / "sbin" / "start-connect-server.sh"), "--wait"]
    for key, value in settings.items():
        option = SUBMIT_OPTIONS.get(key)
        command += [option, value] if option else ["--conf", f"{key}={value}"]
    return [*command, "--conf", f"spark.connect.grpc.binding.port={port}"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--profiles-dir", type=Path, default=Path.home() / ".dbt")
    parser.add_argument("--profile", default="sync_logs")
    parser.add_argument("--target", default=None, help="default: the profile's target")
    parser.add_argument("--port", type=int, default=DEFAULT_PORT)
    parser.add_argument("--lock-wait-seconds", type=float, default=300)
    args = parser.parse_args(argv)
    settings = target_settings(args.profiles_dir, args.profile, args.target)
    warehouse = embedded_warehouse(settings)
    lock = warehouse_lock(warehouse) if warehouse is not None else None
    if lock is not None:
        try:
            lock.acquire(args.lock_wait_seconds, "connect_server")
        except WarehouseLocked as error:
            raise SystemExit(str(error)) from None
    env = {**os.environ, "SPARK_HOME": str(Path(pyspark.__file__).parent)}
    # the server's Python workers (mapInArrow) import this interpreter's packages
    env.setdefault("PYSPARK_PYTHON", sys.executable)
    server = subprocess.Popen(server_command(settings, args.port), env=env,
                              start_new_session=True)
    if lock is not None:
        lock.note_jvm(server.pid)  # a build that finds this process gone waits for the server
    print(f"sync_logs: Spark Connect server (pid {server.pid}) on sc://localhost:{args.port}"
          + (f" for warehouse {warehouse}" if warehouse else ""), flush=True)

    stopped = []

    def stop(*_) -> None:
        stopped.append(True)
        os.killpg(server.pid, signal.SIGTERM)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    code = server.wait()
    wait_for_group(server.pid)  # the JVM outlives the script that started it by a moment
    if lock is not None:
        lock.release()
    return 0 if stopped else code


def wait_for_group(group: int, timeout: float = 60) -> None:
    """Waits until no process of `group` is left; kills what is left after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            os.killpg(group, signal.SIGKILL if time.monotonic() > deadline else 0)
        except ProcessLookupError:
            return
        time.sleep(0.2)


if __name__ == "__main__":
    sys.exit(main())
