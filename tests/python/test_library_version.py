"""The version lives in dbt_project.yml; the models' check, the wheel and `sync_logs.__version__`
read it. The models run the library version of the package, or fail naming the fix."""

import ast
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
import yaml

from sync_logs import __version__
from sync_logs.canonical import require_library

REPO = Path(__file__).resolve().parents[2]
# What the wheel is built from.
BUILD_FILES = ["pyproject.toml", "setup.py", "MANIFEST.in", "README.md", "dbt_project.yml"]


def project() -> dict:
    return yaml.safe_load((REPO / "dbt_project.yml").read_text())


def project_version() -> str:
    return project()["version"]


def test_the_version_is_written_once():
    text = (REPO / "dbt_project.yml").read_text()
    assert text.count(f'"{project_version()}"') == 1, "dbt_project.yml writes its version twice"
    pyproject = (REPO / "pyproject.toml").read_text()
    assert re.search(r'^dynamic = \["version"\]$', pyproject, re.M)
    assert not re.search(r"^version\s*=", pyproject, re.M)
    init = (REPO / "python" / "sync_logs" / "__init__.py").read_text()
    assert not re.search(r"^__version__ = ['\"]", init, re.M)


def test_the_models_check_the_package_version():
    canonical = project()["models"]["sync_logs"]["canonical"]
    assert canonical["+sync_logs_library"] == project_version()


def test_the_installed_library_is_the_package_version():
    assert __version__ == project_version(), (
        "the installed sync-logs metadata is another version than dbt_project.yml's: reinstall "
        "the library (`make venv` after touching pyproject.toml, or pip install -e .)"
    )


def test_the_wheel_takes_its_version_from_dbt_project_yml(tmp_path):
    source = tmp_path / "source"
    source.mkdir()
    for name in BUILD_FILES:
        shutil.copy(REPO / name, source / name)
    shutil.copytree(
        REPO / "python",
        source / "python",
        ignore=shutil.ignore_patterns("dev", "*.egg-info", "__pycache__"),
    )
    project_file = source / "dbt_project.yml"
    text = project_file.read_text()
    project_file.write_text(text.replace(f'"{project_version()}"', '"7.8.9"', 1))
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--quiet",
            "--no-deps",
            str(source),
            "-w",
            str(tmp_path / "dist"),
        ],
        check=True,
        capture_output=True,
        timeout=300,
    )
    (wheel,) = (tmp_path / "dist").glob("*.whl")
    assert wheel.name == "sync_logs-7.8.9-py3-none-any.whl"
    with zipfile.ZipFile(wheel) as archive:
        metadata = archive.read("sync_logs-7.8.9.dist-info/METADATA").decode()
    assert "\nVersion: 7.8.9\n" in metadata


def test_the_package_version_passes():
    require_library(project_version())


@pytest.mark.parametrize("wanted", ["0.1.0", "9.9.9", None])
def test_another_version_fails_and_names_the_fix(wanted):
    with pytest.raises(RuntimeError) as failure:
        require_library(wanted)
    message = str(failure.value)
    assert f"needs the Python library sync-logs {wanted or '(unset)'}, but" in message
    assert f"sync-logs {__version__} is installed" in message
    assert f"pip install 'sync-logs=={wanted or ''}'" in message
    assert "additional_libs" in message
    assert "docs/databricks.md" in message


def test_every_python_model_checks_the_library_first():
    for path in sorted((REPO / "models" / "canonical").glob("*.py")):
        (model,) = [n for n in ast.parse(path.read_text()).body if isinstance(n, ast.FunctionDef)]
        calls = [ast.unparse(statement) for statement in model.body]
        check = "require_library(dbt.config.get('sync_logs_library'))"
        assert check in calls[:2], f"{path.name} does not start with {check}"
