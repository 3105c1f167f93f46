"""The consumer's `dbt docs generate` site, served on loopback and opened in headless Chromium
(tests/services/chromium.sh installs Debian's package): a mart's page and its lineage graph.

Screenshots go to the test's temporary folder; with SYNC_LOGS_UPDATE_SCREENSHOTS=1 they also
replace the ones the README shows, in tests/docs_screenshots/."""

import os
import shutil
from pathlib import Path
from urllib.parse import quote

import pytest
from consumer_harness import PACKAGE_SCHEMA
from docs_browser import Browser, serve

SCREENSHOTS = Path(__file__).resolve().parents[1] / "docs_screenshots"
MART = "sync_logs__errors"

PAGE_TEXT = "document.body ? document.body.innerText : ''"
# dbt docs draws the lineage with cytoscape; its instance hangs off the container element.
GRAPH_OPEN = """(() => {
  const close = document.querySelector('[ng-click="closeGraph()"]');
  return !!(close && close.offsetParent);
})()"""
GRAPH_NODES = """(() => {
  for (const el of document.querySelectorAll('div')) {
    const cy = el._cyreg && el._cyreg.cy;
    if (cy && cy.nodes().length) {
      return cy.nodes().filter(n => n.visible()).map(n => n.data('label') || n.id());
    }
  }
  return null;
})()"""


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    session = Browser(tmp_path_factory.mktemp("chromium_profile"))
    yield session
    session.close()


@pytest.fixture(scope="module")
def site(consumer_build):
    with serve(consumer_build.artifacts) as base:
        yield base


def open_page(browser: Browser, url: str) -> None:
    """A fresh load: the docs app reads the graph parameters (g_v, g_i) only when it starts."""
    browser.goto("about:blank")
    browser.goto(url)


def keep(shot: Path) -> None:
    if os.environ.get("SYNC_LOGS_UPDATE_SCREENSHOTS") == "1":
        SCREENSHOTS.mkdir(exist_ok=True)
        shutil.copyfile(shot, SCREENSHOTS / shot.name)


def test_mart_page_shows_description_columns_and_relation(browser, site, tmp_path):
    open_page(browser, f"{site}/#!/model/model.sync_logs.{MART}")
    text = browser.wait_for(
        f"(() => {{ const t = {PAGE_TEXT}; "
        "return t.includes('rank_by_attempts') && t.includes('Most common errors') ? t : ''; })()",
        what=f"the {MART} page with its columns",
    )
    # The description, the columns with their catalog types, and the relation in the schema
    # the consumer chose, as a view (the consumer's materialization).
    assert "Most common errors across all syncs" in text
    for column in ("failed_reason", "error_category", "num_attempts", "first_seen_at"):
        assert column in text
    assert f"{PACKAGE_SCHEMA}.{MART}" in text
    assert "view" in text.lower()
    shot = browser.screenshot(tmp_path / f"{MART}.png")
    assert shot.stat().st_size > 20_000
    keep(shot)


def test_lineage_graph_runs_from_the_lake_to_the_consumer(browser, site, tmp_path):
    selector = quote(f"+{MART}+")
    open_page(browser, f"{site}/#!/model/model.sync_logs.{MART}?g_v=1&g_i={selector}")
    browser.wait_for(GRAPH_OPEN, what="the lineage graph panel")
    labels = set(browser.wait_for(GRAPH_NODES, what="the lineage graph"))
    expected = {
        MART, "int_sync_logs__error_rows", "int_sync_logs__error_categories",
        "sync_logs_error_categories", "stg_sync_logs__sync_changelog", "sync_changelog",
        "int_sync_logs__run_manifest", "consumer_error_digest",
    }
    assert expected <= labels, sorted(expected - labels)
    # only the mart's ancestors and descendants
    assert "sync_logs__flapping_rows" not in labels
    assert "consumer_sync_activity" not in labels
    shot = browser.screenshot(tmp_path / f"{MART}_lineage.png")
    assert shot.stat().st_size > 20_000
    keep(shot)


def test_site_serves_the_package_overview(browser, site):
    open_page(browser, f"{site}/#!/overview/sync_logs")
    text = browser.wait_for(
        f"(() => {{ const t = {PAGE_TEXT}; "
        "return t.includes('Row-level observability') ? t : ''; })()",
        what="the package overview",
    )
    assert "sync_logs.marts" in text
