"""The canonical models run the library version the dbt package pins, or fail naming the fix."""

import ast
import re
from pathlib import Path

import pytest
import yaml

from sync_logs import __version__
from sync_logs.canonical import require_library

REPO = Path(__file__).resolve().parents[2]


def pinned_requirement() -> str:
    project = yaml.safe_load((REPO / "dbt_project.yml").read_text())
    return project["models"]["sync_logs"]["canonical"]["+sync_logs_library"]


def test_the_package_pins_this_library_once_for_the_check_and_for_databricks():
    project = yaml.safe_load((REPO / "dbt_project.yml").read_text())
    canonical = project["models"]["sync_logs"]["canonical"]
    assert canonical["+sync_logs_library"] == f"sync-logs=={__version__}"
    assert canonical["+packages"] == [canonical["+sync_logs_library"]]
    assert project["version"] == __version__
    pyproject = (REPO / "pyproject.toml").read_text()
    assert re.search(rf'^version = "{re.escape(__version__)}"$', pyproject, re.M)


def test_the_pinned_version_passes():
    require_library(pinned_requirement())


@pytest.mark.parametrize("requirement", ["sync-logs==0.1.0", "sync-logs==9.9.9", None])
def test_another_version_fails_and_names_the_fix(requirement):
    with pytest.raises(RuntimeError) as failure:
        require_library(requirement)
    message = str(failure.value)
    assert f"sync-logs {__version__} is installed" in message
    wanted = (requirement or "").removeprefix("sync-logs==")
    assert f"pip install 'sync-logs=={wanted}'" in message
    assert "additional_libs" in message


def test_every_python_model_checks_the_library_first():
    for path in sorted((REPO / "models" / "canonical").glob("*.py")):
        (model,) = [n for n in ast.parse(path.read_text()).body if isinstance(n, ast.FunctionDef)]
        calls = [ast.unparse(statement) for statement in model.body]
        check = "require_library(dbt.config.get('sync_logs_library'))"
        assert check in calls[:2], f"{path.name} does not start with {check}"
