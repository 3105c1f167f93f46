"""The README and the pages under docs/: the README fits its budget, names the test command CI
runs, and every relative link between the pages (file and heading) resolves."""

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
README = REPO / "README.md"
PAGES = [README, REPO / "CHANGELOG.md", *sorted((REPO / "docs").glob("*.md"))]
README_MAX_LINES = 200
TEST_COMMAND = "make test"

CODE_BLOCK = re.compile(r"```.*?```", re.S)
LINK = re.compile(r"\]\(([^)\s]+)\)")
HEADING = re.compile(r"^#+ (.+)$", re.M)


def prose(page: Path) -> str:
    return CODE_BLOCK.sub("", page.read_text(encoding="utf-8"))


def anchor(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation but `-` and `_` dropped, spaces
    turned into `-`."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def test_readme_fits_its_budget():
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= README_MAX_LINES


def test_ci_runs_the_test_command_the_readme_gives():
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert f"`{TEST_COMMAND}`" in README.read_text(encoding="utf-8")
    assert TEST_COMMAND in [line.strip() for line in ci]


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.relative_to(REPO).as_posix())
def test_relative_links_resolve(page):
    broken = []
    for target in LINK.findall(prose(page)):
        if re.match(r"[a-z]+:", target):
            continue
        path, _, fragment = target.partition("#")
        destination = (page.parent / path).resolve() if path else page
        if not destination.exists():
            broken.append(target)
        elif fragment and destination.suffix == ".md":
            if fragment not in {anchor(h) for h in HEADING.findall(prose(destination))}:
                broken.append(target)
    assert broken == []
