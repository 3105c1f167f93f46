"""What users install runs without the repository: the runtime imports without the optional
extras and without the development package, the CLI names the extra a command needs, and the
demo and test tooling (sync_logs_dev) find the dbt project through an argument (or a checkout),
never by assuming one. The wheel alone (no `session` extra, as on a Spark cluster) serves the
canonical library, and the CLI and the adapter name the extra they need."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from sync_logs import cli
from sync_logs_dev import checkout, dbt_invoke, dbt_subprocess, services
from sync_logs_dev import cli as dev_cli

PYTHON_DIR = Path(__file__).resolve().parents[2] / "python"

# A child interpreter whose import system refuses the `report` extra's modules and the
# development package's (sync_logs_dev and its numpy, tqdm, psutil, duckdb). numpy is refused to
# our modules only, since PySpark's `sql` extra (in the `session` extra) installs it for pandas
# and pyarrow.
BLOCKED_PROBE = r"""
import json, sys

EVERYWHERE = {"tqdm", "altair", "vl_convert", "psutil", "duckdb", "sync_logs_dev"}
OURS_ONLY = {"numpy"}
OURS = ("sync_logs", "dbt.adapters.sparksession", "dbt.include.sparksession")
refused = []


def importer():
    frame = sys._getframe(2)
    while frame is not None and (frame.f_code.co_filename.startswith("<frozen")
                                 or "importlib" in frame.f_code.co_filename):
        frame = frame.f_back
    return frame.f_globals.get("__name__", "") if frame is not None else ""


class Refuse:
    def find_spec(self, name, path=None, target=None):
        top = name.partition(".")[0]
        if top in EVERYWHERE or (top in OURS_ONLY and importer().startswith(OURS)):
            refused.append(f"{name} (from {importer()})")
            raise ModuleNotFoundError(f"No module named {name!r} (refused)", name=name)
        return None


sys.meta_path.insert(0, Refuse())

import importlib, pkgutil

runtime = ["dbt.adapters.sparksession", "dbt.adapters.sparksession.impl",
           "dbt.adapters.sparksession.connections", "dbt.adapters.sparksession.python_submissions",
           "dbt.include.sparksession", "sync_logs.cli", "sync_logs.export_csv",
           "sync_logs.warehouse", "sync_logs.notify", "sync_logs.report", "sync_logs.spark"]
if importlib.util.find_spec("sync_logs.canonical") is not None:
    canonical = importlib.import_module("sync_logs.canonical")
    runtime += ["sync_logs.canonical"] + [
        f"sync_logs.canonical.{m.name}" for m in pkgutil.iter_modules(canonical.__path__)]
imported = []
for name in runtime:
    importlib.import_module(name)
    imported.append(name)

from sync_logs import cli

exits = {"report": cli.main(["report", "--out", sys.argv[1] + "/r.html"])}
print(json.dumps({"imported": imported, "exits": exits, "refused": refused}))
"""


@pytest.fixture(scope="module")
def blocked_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("blocked")
    done = subprocess.run(
        [sys.executable, "-c", BLOCKED_PROBE, str(out)],
        capture_output=True, text=True, timeout=300,
        env={**os.environ, "PYTHONPATH": str(PYTHON_DIR)}, cwd=out,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1]), done.stderr, out


def test_runtime_imports_without_the_extras(blocked_run):
    result, _, _ = blocked_run
    assert "dbt.adapters.sparksession" in result["imported"]
    assert "sync_logs.cli" in result["imported"]
    if importlib.util.find_spec("sync_logs.canonical") is not None:
        assert "sync_logs.canonical" in result["imported"]


def test_runtime_needs_no_development_module(blocked_run):
    result, _, _ = blocked_run
    assert not [name for name in result["refused"] if name.startswith("sync_logs_dev")]


def test_cli_names_the_extra_a_command_needs(blocked_run):
    result, stderr, out = blocked_run
    assert result["exits"] == {"report": 2}
    assert "`sync-logs report` needs altair" in stderr
    assert "pip install 'sync-logs[report]'" in stderr
    assert list(out.iterdir()) == []  # nothing written before the error


# A child interpreter as on a Spark cluster that installed the wheel alone (no `session` extra):
# PySpark and PyArrow are the runtime's; dbt, PyYAML and the `report` extra are refused.
SESSIONLESS_PROBE = r"""
import json, sys

TOP = {"yaml", "dbt_common", "agate", "altair", "vl_convert", "sync_logs_dev"}
OURS = ("dbt.adapters.sparksession", "dbt.include.sparksession")
refused = []


class Refuse:
    def find_spec(self, name, path=None, target=None):
        dbt_not_ours = (name.startswith("dbt.") and not name.startswith(OURS)
                        and name not in ("dbt.adapters", "dbt.include"))
        if name.partition(".")[0] in TOP or dbt_not_ours:
            refused.append(name)
            raise ModuleNotFoundError(f"No module named {name!r} (refused)", name=name)
        return None


sys.meta_path.insert(0, Refuse())

import importlib, pkgutil

canonical = importlib.import_module("sync_logs.canonical")
imported = ["sync_logs.canonical"]
for m in pkgutil.iter_modules(canonical.__path__):
    importlib.import_module(f"sync_logs.canonical.{m.name}")
    imported.append(f"sync_logs.canonical.{m.name}")

from sync_logs import cli

exits = {command: cli.main([command, *extra]) for command, extra in [
    ("export-csv", ["--out", sys.argv[1] + "/r.csv"]),
    ("report", ["--out", sys.argv[1] + "/r.html"]),
    ("notify", ["--dry-run"]),
]}
print(json.dumps({"imported": imported, "exits": exits, "refused": refused}))
"""


def test_wheel_alone_serves_the_models_and_the_cli_names_the_session_extra(tmp_path):
    done = subprocess.run(
        [sys.executable, "-c", SESSIONLESS_PROBE, str(tmp_path)],
        capture_output=True, text=True, timeout=300,
        env={**os.environ, "PYTHONPATH": str(PYTHON_DIR)}, cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert "sync_logs.canonical.payloads" in result["imported"]
    assert result["exits"] == {"export-csv": 2, "report": 2, "notify": 2}
    for command in ("export-csv", "report", "notify"):
        assert f"`sync-logs {command}` needs pyyaml, which is not installed" in done.stderr
    assert done.stderr.count("pip install 'sync-logs[session]'") == 3
    assert list(tmp_path.iterdir()) == []  # nothing written before the error


ADAPTER_WITHOUT_DBT_SPARK = r"""
import sys


class Refuse:
    def find_spec(self, name, path=None, target=None):
        if name.startswith("dbt.adapters.spark.") or name == "dbt.adapters.spark":
            raise ModuleNotFoundError(f"No module named {name!r} (refused)", name=name)
        return None


sys.meta_path.insert(0, Refuse())
from dbt.config.profile import Profile

Profile._credentials_from_profile({"type": "sparksession", "schema": "s"}, "p", "t")
"""


def test_adapter_without_dbt_spark_names_the_session_extra():
    done = subprocess.run(
        [sys.executable, "-c", ADAPTER_WITHOUT_DBT_SPARK],
        capture_output=True, text=True, timeout=300,
        env={**os.environ, "PYTHONPATH": str(PYTHON_DIR)},
    )
    assert done.returncode == 1
    # dbt's invalid-profile error, whose message ends the output
    error = done.stderr[done.stderr.rindex("dbt.exceptions.DbtProfileError:"):]
    assert "the sparksession adapter needs dbt.adapters.spark, which is not installed" in error
    assert error.rstrip().endswith("pip install 'sync-logs[session]'")


@pytest.mark.parametrize("command", ["generate", "demo"])
def test_users_cli_has_no_repository_command(command, capsys):
    with pytest.raises(SystemExit) as exited:
        cli.main([command])
    assert exited.value.code == 2
    assert f"invalid choice: '{command}'" in capsys.readouterr().err


def fake_install(tmp_path: Path) -> Path:
    """Where an installed (non-editable) package's module lives: no project above it."""
    module = tmp_path / "venv" / "lib" / "site-packages" / "sync_logs_dev" / "checkout.py"
    module.parent.mkdir(parents=True)
    return module


def fake_project(folder: Path, name: str = "sync_logs") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "dbt_project.yml").write_text(f'name: "{name}"\nversion: "0.1.0"\n')
    (folder / "profiles.example.yml").write_text(f"# profiles of {folder.name}\n")
    return folder


@pytest.fixture
def installed(tmp_path, monkeypatch):
    """This module's package seen as installed in a venv, run from an empty folder."""
    monkeypatch.setattr(checkout, "__file__", str(fake_install(tmp_path)))
    monkeypatch.delenv(checkout.PROJECT_DIR_ENV, raising=False)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    return tmp_path


def test_installed_package_without_checkout_says_how_to_name_the_project(installed):
    with pytest.raises(checkout.CheckoutNotFound, match="SYNC_LOGS_PROJECT_DIR"):
        checkout.checkout_dir()
    with pytest.raises(checkout.CheckoutNotFound, match="--project-dir"):
        dbt_invoke.example_profiles_dir(installed / "target")
    with pytest.raises(checkout.CheckoutNotFound):
        dbt_subprocess.profiles_dir(installed / "profiles")


def test_demo_outside_a_checkout_is_a_clear_error(installed, capsys):
    assert dev_cli.main(["demo"]) == 2
    error = capsys.readouterr().err
    assert error.startswith("sync-logs-dev demo: error: the sync_logs dbt project was not found")
    assert "--project-dir" in error
    assert not (installed / "elsewhere" / "target").exists()


def test_installed_package_finds_the_checkout_it_runs_from(installed, monkeypatch):
    project = fake_project(installed / "repo")
    monkeypatch.chdir(project)
    assert checkout.checkout_dir() == project.resolve()


def test_another_dbt_project_is_not_the_checkout(installed, monkeypatch):
    monkeypatch.chdir(fake_project(installed / "theirs", name="jaffle_shop"))
    with pytest.raises(checkout.CheckoutNotFound):
        checkout.checkout_dir()


def test_project_dir_named_by_the_environment(installed, monkeypatch):
    project = fake_project(installed / "named")
    monkeypatch.setenv(checkout.PROJECT_DIR_ENV, str(project))
    assert checkout.checkout_dir() == project.resolve()
    monkeypatch.setenv(checkout.PROJECT_DIR_ENV, str(installed / "elsewhere"))
    with pytest.raises(checkout.CheckoutNotFound, match="is not the sync_logs dbt project"):
        checkout.checkout_dir()


def test_profiles_come_from_the_project_given(installed):
    project = fake_project(installed / "given")
    folder = dbt_invoke.example_profiles_dir(installed / "target", project)
    assert (folder / "profiles.yml").read_text() == "# profiles of given\n"
    folder = dbt_subprocess.profiles_dir(installed / "sub", project)
    assert (folder / "profiles.yml").read_text() == "# profiles of given\n"


def test_service_state_goes_under_the_folder_given(tmp_path, monkeypatch):
    assert services.default_state_dir("thrift_server", tmp_path) == (
        tmp_path.resolve() / "target" / "services" / "thrift_server")
    monkeypatch.chdir(tmp_path)
    assert services.default_state_dir("spark_cluster") == (
        tmp_path.resolve() / "target" / "services" / "spark_cluster")
