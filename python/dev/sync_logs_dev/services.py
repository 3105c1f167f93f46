"""Spark services on loopback, started from the pip PySpark installation: a standalone cluster
(one master, N workers) and a Spark Thrift server. Used by tests/cluster/ and bench/, and from
the shell as `python -m sync_logs_dev.services cluster|thrift start|stop|status|env`.

Every process binds 127.0.0.1 only, runs in a process group of its own (so that `stop` ends it
and every child it spawned, e.g. executors and their Python workers, and nothing else), and
writes its log and pid file under one state folder (--state-dir; default
target/services/<name>/ under the current directory).
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TypeVar

import pyspark

from sync_logs.spark import SMALL_DATA_JAVA_OPTIONS, SMALL_DATA_SETTINGS

SPARK_HOME = Path(pyspark.__file__).resolve().parent
LOOPBACK = "127.0.0.1"

MASTER_CLASS = "org.apache.spark.deploy.master.Master"
WORKER_CLASS = "org.apache.spark.deploy.worker.Worker"
THRIFT_CLASS = "org.apache.spark.sql.hive.thriftserver.HiveThriftServer2"


class ServiceError(RuntimeError):
    """A service did not start (or stop); the message quotes the end of its log."""


def free_port() -> int:
    """A TCP port on loopback that nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind((LOOPBACK, 0))
        return probe.getsockname()[1]


def port_open(port: int, host: str = LOOPBACK) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.settimeout(0.5)
        return probe.connect_ex((host, port)) == 0


def get_json(url: str, timeout: float = 5.0):
    with urllib.request.urlopen(url, timeout=timeout) as response:
        return json.load(response)


def log_tail(path: Path, lines: int = 40) -> str:
    if not path.exists():
        return f"(no log at {path})"
    text = path.read_text(errors="replace").splitlines()
    return "\n".join(text[-lines:])


def spark_env(conf_dir: Path, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """Environment for a Spark JVM from the pip package, pinned to loopback and this Python."""
    env = dict(os.environ)
    env.update(
        {
            "SPARK_HOME": str(SPARK_HOME),
            "SPARK_CONF_DIR": str(conf_dir),
            "SPARK_LOCAL_IP": LOOPBACK,
            "SPARK_LOCAL_HOSTNAME": "localhost",
            "SPARK_PUBLIC_DNS": LOOPBACK,
            "SPARK_DAEMON_MEMORY": os.environ.get("SYNC_LOGS_DAEMON_MEMORY", "512m"),
            "PYSPARK_PYTHON": sys.executable,
            "PYSPARK_DRIVER_PYTHON": sys.executable,
        }
    )
    env.update(extra or {})
    return env


def write_conf_dir(conf_dir: Path, properties: Mapping[str, str]) -> Path:
    """A SPARK_CONF_DIR holding spark-defaults.conf (and nothing inherited from elsewhere)."""
    conf_dir.mkdir(parents=True, exist_ok=True)
    lines = [f"{key} {value}" for key, value in properties.items()]
    (conf_dir / "spark-defaults.conf").write_text("\n".join(lines) + "\n")
    return conf_dir


def _proc_stat(pid: int) -> list[str] | None:
    """Fields of /proc/<pid>/stat after the command name, or None if there is no such process."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return None
    return text[text.rindex(")") + 2:].split()


@dataclass
class Process:
    """One process we started: its role, pid (= its process group), start time and log file.

    (pid, start time) identifies it even across `exec` (spark-class execs java) and guards
    against a recycled pid: we never signal a process we did not start.
    """

    role: str
    main_class: str
    pid: int
    log: str
    start_ticks: str = ""

    def alive(self) -> bool:
        stat = _proc_stat(self.pid)
        # stat[0] is the state, stat[19] the start time in clock ticks since boot.
        return stat is not None and stat[0] != "Z" and stat[19] == self.start_ticks

    def stop(self, timeout: float = 20.0) -> None:
        """SIGTERM to its process group, SIGKILL after `timeout` seconds."""
        if not self.alive():
            return
        try:
            os.killpg(self.pid, signal.SIGTERM)
        except ProcessLookupError:
            return
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            _reap(self.pid)
            if not self.alive():
                break
            time.sleep(0.2)
        else:
            try:
                os.killpg(self.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        # Children of the group (executors, Python workers) that outlived their parent.
        try:
            os.killpg(self.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        _reap(self.pid)


def _reap(pid: int) -> None:
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        pass


def launch(role: str, main_class: str, args: list[str], env: dict[str, str], log: Path) -> Process:
    """`spark-class <main_class> <args>` in a new session (own process group), output to `log`."""
    log.parent.mkdir(parents=True, exist_ok=True)
    command = [str(SPARK_HOME / "bin" / "spark-class"), main_class, *args]
    with open(log, "ab") as out:
        out.write(f"\n=== {time.strftime('%F %T')} {' '.join(command)}\n".encode())
        out.flush()
        child = subprocess.Popen(
            command,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            cwd=log.parent,
        )
    stat = _proc_stat(child.pid)
    start_ticks = stat[19] if stat else ""
    return Process(role=role, main_class=main_class, pid=child.pid, log=str(log),
                   start_ticks=start_ticks)


def wait_for(what: str, check, processes: list[Process], timeout: float) -> None:
    """Poll `check()` until true; fail early (with the log) if one of `processes` died."""
    deadline = time.monotonic() + timeout
    last_error: Exception | None = None
    while time.monotonic() < deadline:
        for process in processes:
            if not process.alive():
                raise ServiceError(
                    f"{process.role} ({process.main_class}) exited while waiting for {what}; "
                    f"end of {process.log}:\n{log_tail(Path(process.log))}"
                )
        try:
            if check():
                return
        except (OSError, urllib.error.URLError, ValueError) as error:
            last_error = error
        time.sleep(0.5)
    logs = "\n".join(f"--- {p.log}\n{log_tail(Path(p.log), 20)}" for p in processes)
    raise ServiceError(f"timed out after {timeout:.0f}s waiting for {what} ({last_error})\n{logs}")


def default_state_dir(name: str, base: Path | None = None) -> Path:
    """<base>/target/services/<name>, base the current directory unless given."""
    return (base or Path.cwd()).resolve() / "target" / "services" / name


_Saved = TypeVar("_Saved", bound="SavedService")


class SavedService:
    """A dataclass service whose state (ports, processes) lives in <state_dir>/state.json."""

    state_dir: Path
    processes: list[Process]

    @property
    def state_file(self) -> Path:
        return self.state_dir / "state.json"

    def save(self) -> None:
        state = asdict(self)
        state["state_dir"] = str(self.state_dir)
        self.state_file.write_text(json.dumps(state, indent=2))

    @classmethod
    def load(cls: type[_Saved], state_dir: Path) -> _Saved:
        state = json.loads((state_dir / "state.json").read_text())
        state["state_dir"] = Path(state["state_dir"])
        state["processes"] = [Process(**p) for p in state["processes"]]
        return cls(**state)


@dataclass
class SparkCluster(SavedService):
    """A standalone master and `workers` workers (each `worker_cores` cores, `worker_memory`)."""

    state_dir: Path
    master_port: int = 7077
    master_ui_port: int = 8080
    workers: int = 2
    worker_cores: int = 1
    worker_memory: str = "1g"
    worker_ports: list[int] = field(default_factory=list)
    worker_ui_ports: list[int] = field(default_factory=list)
    processes: list[Process] = field(default_factory=list)

    @classmethod
    def with_free_ports(cls, state_dir: Path, workers: int = 2, **kwargs) -> SparkCluster:
        return cls(
            state_dir=state_dir,
            master_port=free_port(),
            master_ui_port=free_port(),
            workers=workers,
            worker_ports=[free_port() for _ in range(workers)],
            worker_ui_ports=[free_port() for _ in range(workers)],
            **kwargs,
        )

    @property
    def master_url(self) -> str:
        return f"spark://{LOOPBACK}:{self.master_port}"

    @property
    def master_ui(self) -> str:
        return f"http://{LOOPBACK}:{self.master_ui_port}"

    def worker_ui(self, index: int) -> str:
        return f"http://{LOOPBACK}:{self.worker_ui_ports[index]}"

    def master_status(self) -> dict:
        return get_json(f"{self.master_ui}/json/")

    def start(self, timeout: float = 90.0) -> SparkCluster:
        if self.state_file.exists():
            running = SparkCluster.load(self.state_dir)
            if any(p.alive() for p in running.processes):
                raise ServiceError(
                    f"a cluster from {self.state_dir} is already running; stop it first"
                )
        self.state_dir = self.state_dir.resolve()
        self.state_dir.mkdir(parents=True, exist_ok=True)
        while len(self.worker_ports) < self.workers:
            self.worker_ports.append(free_port())
        while len(self.worker_ui_ports) < self.workers:
            self.worker_ui_ports.append(free_port())
        for port in [self.master_port, self.master_ui_port, *self.worker_ports,
                     *self.worker_ui_ports]:
            if port_open(port):
                raise ServiceError(f"port {port} on {LOOPBACK} is already in use")
        conf_dir = write_conf_dir(
            self.state_dir / "conf",
            {"spark.ui.reverseProxy": "false", "spark.master.rest.enabled": "false"},
        )
        env = spark_env(conf_dir)
        logs = self.state_dir / "logs"
        try:
            master = launch(
                "master", MASTER_CLASS,
                ["--host", LOOPBACK, "--port", str(self.master_port),
                 "--webui-port", str(self.master_ui_port)],
                env, logs / "master.log",
            )
            self.processes = [master]
            self.save()
            wait_for(
                "the master's status page",
                lambda: self.master_status().get("status") == "ALIVE",
                self.processes, timeout,
            )
            for index in range(self.workers):
                work_dir = self.state_dir / f"worker-{index + 1}"
                work_dir.mkdir(parents=True, exist_ok=True)
                self.processes.append(
                    launch(
                        f"worker-{index + 1}", WORKER_CLASS,
                        ["--host", LOOPBACK, "--port", str(self.worker_ports[index]),
                         "--webui-port", str(self.worker_ui_ports[index]),
                         "--cores", str(self.worker_cores), "--memory", self.worker_memory,
                         "--work-dir", str(work_dir), self.master_url],
                        env, logs / f"worker-{index + 1}.log",
                    )
                )
                self.save()
            wait_for(
                f"{self.workers} ALIVE workers registered with the master",
                lambda: self.alive_workers() == self.workers,
                self.processes, timeout,
            )
        except BaseException:
            self.stop()
            raise
        return self

    def alive_workers(self) -> int:
        workers = self.master_status().get("workers", [])
        return sum(1 for worker in workers if worker.get("state") == "ALIVE")

    def stop(self) -> None:
        # Workers first (they end their executors), then the master.
        for process in reversed(self.processes):
            process.stop()
        if self.state_file.exists():
            self.state_file.unlink()


    def driver_conf(self, event_log_dir: Path | None = None, ui_port: int | None = None,
                    executor_memory: str | None = None) -> dict[str, str]:
        """spark-defaults for a driver (dbt, in-process) that uses this cluster."""
        conf = {
            "spark.master": self.master_url,
            "spark.driver.host": LOOPBACK,
            "spark.driver.bindAddress": LOOPBACK,
            "spark.executor.memory": executor_memory or self.worker_memory,
            "spark.pyspark.python": sys.executable,
            "spark.ui.port": str(ui_port or free_port()),
        }
        if event_log_dir is not None:
            event_log_dir.mkdir(parents=True, exist_ok=True)
            conf["spark.eventLog.enabled"] = "true"
            conf["spark.eventLog.dir"] = event_log_dir.resolve().as_uri()
            # One plain JSON-lines file per application, readable without Spark.
            conf["spark.eventLog.compress"] = "false"
            conf["spark.eventLog.rolling.enabled"] = "false"
        return conf

    def driver_env(self, conf_dir: Path, **conf_kwargs) -> dict[str, str]:
        """Environment variables for `dbt ... --target cluster` against this cluster."""
        write_conf_dir(conf_dir, self.driver_conf(**conf_kwargs))
        return {
            "SYNC_LOGS_SPARK_MASTER": self.master_url,
            "SPARK_CONF_DIR": str(conf_dir.resolve()),
            "SPARK_LOCAL_IP": LOOPBACK,
            "SPARK_LOCAL_HOSTNAME": "localhost",
            "PYSPARK_PYTHON": sys.executable,
            "PYSPARK_DRIVER_PYTHON": sys.executable,
        }


@dataclass
class ThriftServer(SavedService):
    """HiveThriftServer2 on loopback, its warehouse and Derby metastore in `state_dir`."""

    state_dir: Path
    port: int = 10000
    ui_port: int = 4050
    master: str = "local[2]"
    driver_memory: str = "1g"
    #: sized for tables of a few rows (sync_logs.spark's SMALL_DATA settings), as the tests are
    small_data: bool = False
    processes: list[Process] = field(default_factory=list)

    @classmethod
    def with_free_ports(cls, state_dir: Path, **kwargs) -> ThriftServer:
        return cls(state_dir=state_dir, port=free_port(), ui_port=free_port(), **kwargs)

    @property
    def warehouse(self) -> Path:
        return self.state_dir / "warehouse"

    def start(self, timeout: float = 120.0) -> ThriftServer:
        if self.state_file.exists():
            running = ThriftServer.load(self.state_dir)
            if any(p.alive() for p in running.processes):
                raise ServiceError(
                    f"a thrift server from {self.state_dir} is already running; stop it first"
                )
        self.state_dir = self.state_dir.resolve()
        self.warehouse.mkdir(parents=True, exist_ok=True)
        for port in (self.port, self.ui_port):
            if port_open(port):
                raise ServiceError(f"port {port} on {LOOPBACK} is already in use")
        java_options = f"-Dderby.system.home={self.state_dir}"
        if self.small_data:
            java_options += f" {SMALL_DATA_JAVA_OPTIONS}"
        conf_dir = write_conf_dir(
            self.state_dir / "conf",
            {
                **(SMALL_DATA_SETTINGS if self.small_data else {}),
                "spark.master": self.master,
                "spark.app.name": "sync_logs_thrift",
                "spark.driver.memory": self.driver_memory,
                "spark.driver.host": LOOPBACK,
                "spark.driver.bindAddress": LOOPBACK,
                "spark.ui.port": str(self.ui_port),
                "spark.sql.catalogImplementation": "hive",
                "spark.sql.warehouse.dir": self.warehouse.as_uri(),
                "spark.hadoop.javax.jdo.option.ConnectionURL":
                    f"jdbc:derby:;databaseName={self.state_dir / 'metastore_db'};create=true",
                "spark.driver.extraJavaOptions": java_options,
                "spark.sql.shuffle.partitions": "2" if self.small_data else "4",
                "spark.sql.session.timeZone": "UTC",
            },
        )
        env = spark_env(conf_dir)
        try:
            server = _launch_submit(
                "thrift", THRIFT_CLASS, env, self.state_dir / "logs" / "thrift.log",
                ["--hiveconf", f"hive.server2.thrift.bind.host={LOOPBACK}",
                 "--hiveconf", f"hive.server2.thrift.port={self.port}",
                 "--hiveconf", "hive.server2.transport.mode=binary"],
            )
            self.processes = [server]
            self.save()
            wait_for(
                f"the thrift server to answer `select 1` on {LOOPBACK}:{self.port}",
                lambda: self.query("select 1") == [(1,)],
                self.processes, timeout,
            )
        except BaseException:
            self.stop()
            raise
        return self

    def query(self, sql: str) -> list[tuple]:
        """Run one statement through the Thrift protocol (PyHive, as dbt-spark does)."""
        return self.query_with_columns(sql)[1]

    def query_with_columns(self, sql: str) -> tuple[list[str], list[tuple]]:
        if not port_open(self.port):
            raise OSError(f"nothing listens on {LOOPBACK}:{self.port} yet")
        from pyhive import hive

        connection = hive.connect(host=LOOPBACK, port=self.port, username="sync_logs")
        try:
            cursor = connection.cursor()
            cursor.execute(sql)
            if not cursor.description:  # a statement without a result set
                return [], []
            columns = [column[0].split(".")[-1] for column in cursor.description]
            return columns, [tuple(row) for row in cursor.fetchall()]
        finally:
            connection.close()

    def stop(self) -> None:
        for process in self.processes:
            process.stop()
        if self.state_file.exists():
            self.state_file.unlink()



def _launch_submit(role: str, main_class: str, env: dict[str, str], log: Path,
                   app_args: list[str]) -> Process:
    """spark-submit of a class from Spark's own jars (as sbin/start-thriftserver.sh does)."""
    return launch(
        role, "org.apache.spark.deploy.SparkSubmit",
        ["--class", main_class, "--name", f"sync_logs_{role}", "spark-internal", *app_args],
        env, log,
    )


def _cluster_cli(args: argparse.Namespace) -> int:
    state_dir = Path(args.state_dir or default_state_dir("spark_cluster")).resolve()
    if args.action == "start":
        cluster = SparkCluster(
            state_dir=state_dir,
            master_port=args.master_port,
            master_ui_port=args.master_ui_port,
            workers=args.workers,
            worker_cores=args.worker_cores,
            worker_memory=args.worker_memory,
        ).start()
        print(f"Spark master {cluster.master_url}, UI {cluster.master_ui}/json/, "
              f"{cluster.workers} workers; logs in {state_dir / 'logs'}")
        return 0
    if not (state_dir / "state.json").exists():
        print(f"no cluster state in {state_dir}: not running")
        return 0 if args.action == "stop" else 1
    cluster = SparkCluster.load(state_dir)
    if args.action == "stop":
        cluster.stop()
        print("stopped")
        return 0
    if args.action == "env":
        conf_dir = state_dir / "driver-conf"
        for key, value in cluster.driver_env(conf_dir).items():
            print(f"export {key}={value}")
        return 0
    alive = {p.role: p.alive() for p in cluster.processes}
    print(json.dumps({"master": cluster.master_url, "ui": cluster.master_ui, "alive": alive}))
    try:
        print(f"workers ALIVE per master: {cluster.alive_workers()}")
    except OSError as error:
        print(f"master UI not answering: {error}")
        return 1
    return 0 if all(alive.values()) else 1


def _thrift_cli(args: argparse.Namespace) -> int:
    state_dir = Path(args.state_dir or default_state_dir("thrift_server")).resolve()
    if args.action == "start":
        server = ThriftServer(state_dir=state_dir, port=args.port, ui_port=args.ui_port).start()
        print(f"Spark Thrift server on {LOOPBACK}:{server.port}, warehouse {server.warehouse}, "
              f"log {state_dir / 'logs' / 'thrift.log'}")
        return 0
    if not (state_dir / "state.json").exists():
        print(f"no thrift server state in {state_dir}: not running")
        return 0 if args.action == "stop" else 1
    server = ThriftServer.load(state_dir)
    if args.action == "stop":
        server.stop()
        print("stopped")
        return 0
    if args.action == "env":
        print(f"export SYNC_LOGS_THRIFT_HOST={LOOPBACK}")
        print(f"export SYNC_LOGS_THRIFT_PORT={server.port}")
        return 0
    alive = all(p.alive() for p in server.processes)
    print(json.dumps({"port": server.port, "alive": alive}))
    return 0 if alive else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m sync_logs_dev.services", description=__doc__)
    services = parser.add_subparsers(dest="service", required=True)
    cluster = services.add_parser("cluster", help="Spark standalone master + workers")
    cluster.add_argument("action", choices=["start", "stop", "status", "env"])
    cluster.add_argument("--state-dir")
    cluster.add_argument("--master-port", type=int,
                         default=int(os.environ.get("SYNC_LOGS_MASTER_PORT", "7077")))
    cluster.add_argument("--master-ui-port", type=int,
                         default=int(os.environ.get("SYNC_LOGS_MASTER_UI_PORT", "8080")))
    cluster.add_argument("--workers", type=int, default=2)
    cluster.add_argument("--worker-cores", type=int, default=1)
    cluster.add_argument("--worker-memory", default="1g")
    cluster.set_defaults(run=_cluster_cli)
    thrift = services.add_parser("thrift", help="Spark Thrift server (HiveServer2 protocol)")
    thrift.add_argument("action", choices=["start", "stop", "status", "env"])
    thrift.add_argument("--state-dir")
    thrift.add_argument("--port", type=int,
                        default=int(os.environ.get("SYNC_LOGS_THRIFT_PORT", "10000")))
    thrift.add_argument("--ui-port", type=int, default=4050)
    thrift.set_defaults(run=_thrift_cli)
    args = parser.parse_args(argv)
    try:
        return args.run(args)
    except ServiceError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())

