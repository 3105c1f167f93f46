"""The package's version comes from dbt_project.yml (`version:`), the one place it is written;
everything else is in pyproject.toml. A regular expression, not a YAML parser: the build runs in
an isolated environment that has only setuptools."""

import re
from pathlib import Path

from setuptools import setup

PROJECT = Path(__file__).resolve().parent / "dbt_project.yml"
VERSION = re.compile(r"""^version:\s*(?:&\S+\s+)?["']?([^"'\s#]+)""", re.MULTILINE)


def project_version() -> str:
    found = VERSION.search(PROJECT.read_text())
    if found is None:
        raise RuntimeError(f"no `version:` line in {PROJECT}")
    return found.group(1)


setup(version=project_version())
