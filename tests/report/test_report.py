"""`sync-logs report` over hand-made marts in DuckDB (tests/report/handmade_marts.py), read
through dbt, opened from a file:// URL in headless Chromium (tests/services/chromium.sh).

Every expected number is counted off the story in handmade_marts.py by hand. Screenshots of each
section go to the test's temporary folder; with SYNC_LOGS_UPDATE_SCREENSHOTS=1 they also replace
the committed ones in tests/report_screenshots/."""

import json
import os
import re
import shutil
from pathlib import Path

import pytest
from docs_browser import Browser
from handmade_marts import MARTS_SCHEMA, create_tables, dbt_args, execute

from sync_logs import cli
from sync_logs.report import SECTIONS, ReportOptions, write_report
from sync_logs.warehouse import Warehouse

SCREENSHOTS = Path(__file__).resolve().parents[1] / "report_screenshots"

# Installed before the page's own scripts: every console error, uncaught exception and
# rejected promise lands in window.__reportErrors.
ERROR_HOOK = """
window.__reportErrors = [];
const __consoleError = console.error.bind(console);
console.error = (...args) => { window.__reportErrors.push(args.map(String).join(' '));
                               __consoleError(...args); };
window.addEventListener('error', e => window.__reportErrors.push('error: ' + e.message));
window.addEventListener('unhandledrejection',
                        e => window.__reportErrors.push('rejection: ' + e.reason));
"""


def run_report(work: Path, path: Path, options: ReportOptions | None = None,
               extra_args: tuple[str, ...] = ()):
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SYNC_LOGS_DUCKDB_PATH", str(path))
        patch.setenv("SYNC_LOGS_SCHEMA", "report_tests")
        warehouse = Warehouse([*dbt_args(work), *extra_args])
        return write_report(work / "report.html", warehouse, options)


@pytest.fixture(scope="module")
def report(handmade):
    work, path = handmade
    return run_report(work, path)


@pytest.fixture(scope="module")
def page(report, tmp_path_factory):
    browser = Browser(tmp_path_factory.mktemp("chromium_report"), width=1280, height=900)
    try:
        browser.call("Page.addScriptToEvaluateOnNewDocument", source=ERROR_HOOK)
        browser.goto(report.path.as_uri())
        state = browser.wait_for("document.body && document.body.dataset.chartsReady",
                                 what="the report's charts")
        assert state == "yes", browser.evaluate("window.__reportErrors")
        yield browser
    finally:
        browser.close()


def text_of(browser: Browser, selector: str) -> str:
    return browser.evaluate(
        f"(() => {{ const el = document.querySelector({selector!r}); "
        "return el ? el.innerText : null; })()")


def table_rows(browser: Browser, selector: str) -> list[list[str]]:
    return browser.evaluate(
        f"[...document.querySelectorAll({(selector + ' tbody tr')!r})]"
        ".map(tr => [...tr.children].map(td => td.innerText))")


def mark_labels(browser: Browser, chart_index: int, mark: str) -> list[str]:
    """The aria-labels Vega gives each drawn mark of a chart (one per bar or point)."""
    return browser.evaluate(
        f"[...document.querySelectorAll('#chart-{chart_index} g.mark-{mark}.role-mark path')]"
        ".map(p => p.getAttribute('aria-label')).filter(Boolean)")


def screenshot(browser: Browser, section: str, folder: Path) -> Path:
    """A picture of one section, whole (beyond the window when it is taller)."""
    box = browser.evaluate(
        f"(() => {{ const r = document.getElementById({section!r}).getBoundingClientRect(); "
        "return {x: r.left + window.scrollX, y: r.top + window.scrollY, "
        "width: r.width, height: r.height}; })()")
    data = browser.call("Page.captureScreenshot", format="png", captureBeyondViewport=True,
                        clip={**box, "scale": 1})["data"]
    import base64

    shot = folder / f"{section}.png"
    shot.write_bytes(base64.b64decode(data))
    if os.environ.get("SYNC_LOGS_UPDATE_SCREENSHOTS") == "1":
        SCREENSHOTS.mkdir(exist_ok=True)
        shutil.copyfile(shot, SCREENSHOTS / shot.name)
    return shot


def test_report_is_one_offline_file_with_no_console_errors(report, page):
    html = report.path.read_text(encoding="utf-8")
    # scripts, styles and fonts inline: no element of the page (outside the scripts' code)
    # loads anything, and the browser fetched nothing
    markup = re.sub(r"(<script[^>]*>).*?</script>", r"\1</script>", html, flags=re.S)
    assert markup.count("<script") == 5
    assert not re.search(r"\s(src|href)=\"(?!#)", markup)
    assert "<link" not in markup and "@import" not in markup and "url(" not in markup
    assert page.evaluate("performance.getEntriesByType('resource').length") == 0
    assert page.evaluate("window.__reportErrors") == []
    # every chart drew an SVG
    charts = page.evaluate("[...document.querySelectorAll('.chart')].map(c => "
                           "[c.id, !!c.querySelector('svg')])")
    assert len(charts) == 7 and all(drawn for _, drawn in charts), charts
    assert report.failed_sections == []
    assert [s for s, _ in SECTIONS] == page.evaluate(
        "[...document.querySelectorAll('main > section')].map(s => s.id)")


def test_overview_shows_syncs_incidents_and_success_rates(page, tmp_path):
    kpis = page.evaluate("[...document.querySelectorAll('.kpi')].map(k => "
                         "[k.querySelector('.kpi-label').innerText.toLowerCase(), "
                         "k.querySelector('.kpi-value').innerText, "
                         "k.querySelector('.kpi-detail').innerText])")
    assert kpis == [
        ["syncs", "2", "5 runs"],
        ["open incidents", "2", "1 critical"],
        # 3 of the 5 runs succeeded
        ["run success rate", "60.0 %", "2 failed or cancelled runs"],
        # 7 of 10 planned row operations succeeded
        ["row success rate", "70.0 %", "7 of 10 planned operations succeeded"],
    ]
    open_ids = [row[0] for row in table_rows(page, "#open-incidents")]
    assert open_ids == ["inc-202-cancelled", "inc-202-new-error"]  # critical first
    assert [row[0] for row in table_rows(page, "#resolved-incidents")] == ["inc-101-failed"]
    # runs per day, all syncs: 10-01 1 succeeded; 10-02 1 failed, 1 succeeded;
    # 10-03 1 succeeded, 1 cancelled
    labels = mark_labels(page, 1, "rect")
    assert len(labels) == 5, labels
    syncs = table_rows(page, "#sync-table")
    assert [(r[0], r[1], r[3], r[4], r[5]) for r in syncs] == [
        ("202", "Churn risk", "2", "50.0 %", "66.7 %"),
        ("101", "High-intent trial users", "3", "66.7 %", "71.4 %"),
    ]
    screenshot(page, "overview", tmp_path)


def test_per_sync_charts_follow_the_sync_picker(page, tmp_path):
    options = page.evaluate("[...document.querySelectorAll('#sync-picker option')]"
                            ".map(o => [o.value, o.textContent])")
    assert options == [["202", "202 · Churn risk → braze"],
                       ["101", "101 · High-intent trial users → salesforce"]]
    # sync 202 first: one succeeded run on 10-02, one cancelled on 10-03
    runs = mark_labels(page, 2, "rect")
    assert len(runs) == 2 and any("cancelled" in label for label in runs), runs
    page.evaluate("(() => { const s = document.getElementById('sync-picker'); "
                  "s.value = '101'; "
                  "s.dispatchEvent(new Event('change')); })()")
    page.wait_for("document.querySelectorAll('#chart-2 g.mark-rect.role-mark path').length === 3",
                  what="sync 101's three days of runs")
    runs = mark_labels(page, 2, "rect")
    assert sum("failed" in label for label in runs) == 1
    # one run a day, so each day's p50 and p95 are that run's duration: 60, 120, 90 s
    page.wait_for("document.querySelectorAll('#chart-3 g.mark-symbol.role-mark path').length === 6",
                  what="sync 101's duration points")
    durations = mark_labels(page, 3, "symbol")
    seconds = sorted(float(re.search(r"seconds: ([0-9.,]+)", label).group(1).replace(",", ""))
                     for label in durations)
    assert seconds == [60.0, 60.0, 90.0, 90.0, 120.0, 120.0]
    # planned against succeeded: 3/2, 2/1, 2/2 on the three days
    planned = mark_labels(page, 4, "symbol")
    pairs = sorted((re.search(r"operations_kind: (\w+)", label).group(1),
                    int(re.search(r"operations: (\d+)", label).group(1))) for label in planned)
    assert pairs == [("planned", 2), ("planned", 2), ("planned", 3),
                     ("succeeded", 1), ("succeeded", 2), ("succeeded", 2)]
    assert page.evaluate("window.__reportErrors") == []
    screenshot(page, "per-sync", tmp_path)


def test_errors_show_classes_messages_top_and_new_errors(page, tmp_path):
    # classes per day: rate_limit on 10-01 and 10-03, validation on 10-02
    classes = mark_labels(page, 5, "rect")
    assert sorted(re.search(r"error_class: (\w+)", label).group(1) for label in classes) == [
        "rate_limit", "rate_limit", "validation"]
    messages = mark_labels(page, 6, "symbol")
    assert len(messages) == 3
    top = table_rows(page, "#top-errors")
    assert [(r[0], r[1], r[2]) for r in top] == [
        ("Rate limit exceeded, retry later", "rate_limit", "2"),
        ("Invalid email address", "validation", "1"),
    ]
    new = table_rows(page, "#new-errors")
    assert [(r[0], r[2], r[4]) for r in new] == [("202", "2002",
                                                  "Rate limit exceeded, retry later")]
    screenshot(page, "errors", tmp_path)


def test_audiences_show_entries_and_exits_per_model(page, tmp_path):
    options = page.evaluate("[...document.querySelectorAll('#model-picker option')]"
                            ".map(o => o.value)")
    assert options == ["High-intent trial users", "Churn risk"]  # most events first
    totals = table_rows(page, "#audience-totals")
    assert totals == [["High-intent trial users", "3", "1", "2"], ["Churn risk", "2", "0", "2"]]
    # entries on 10-01 (2) and 10-02 (1), an exit on 10-03, zero bars on the other days
    labels = mark_labels(page, 7, "rect")
    entered = sorted(label for label in labels if "event_type: entered" in label)
    assert len(entered) == 3
    screenshot(page, "audiences", tmp_path)


def test_record_lookup_shows_the_history_of_a_searched_row_id(page, tmp_path):
    sampling = text_of(page, "#lookup-sampling")
    assert "A sample of 5 of 5 rows" in sampling
    assert "1 such rows" in sampling and "latest 10 attempts" in sampling
    page.evaluate("document.getElementById('lookup-search').focus()")
    page.call("Input.insertText", text="u1")
    page.wait_for("document.querySelectorAll('#lookup-results .history').length === 1",
                  what="u1's history")
    assert text_of(page, "#lookup-results h4") == (
        "row_id u1 in sync 101 (High-intent trial users): 3 attempt(s), oldest first")
    rows = table_rows(page, "#lookup-results .history-table")
    assert [(r[0], r[3], r[4], r[5]) for r in rows] == [
        ("1001", "added", "succeeded", ""),
        ("1002", "changed", "failed", "Invalid email address"),
        ("1003", "changed", "succeeded", ""),
    ]
    assert rows[1][6] == '{"email":"not-an-email","plan":"trial"}'
    screenshot(page, "record-lookup", tmp_path)
    # a part of an id lists every match; an unknown one says so
    page.evaluate("(() => { const s = document.getElementById('lookup-search'); "
                  "s.value = 'c'; s.dispatchEvent(new Event('input')); })()")
    assert page.evaluate("document.querySelectorAll('#lookup-results .history').length") == 2
    page.evaluate("(() => { const s = document.getElementById('lookup-search'); "
                  "s.value = 'zz'; s.dispatchEvent(new Event('input')); })()")
    assert text_of(page, "#lookup-status") == 'No row_id matching "zz" in the sample.'
    assert page.evaluate("window.__reportErrors") == []


def test_absent_relations_leave_a_note_not_a_failure(report_project, tmp_path):
    # an older package: no incidents mart; and audience events not built
    path = tmp_path / "older.duckdb"
    create_tables(path, MARTS_SCHEMA, skip=("sync_logs__incidents",
                                            "sync_logs__audience_events"))
    older = json.dumps({"report_tests_package_without_incidents": True})
    result = run_report(tmp_path, path, extra_args=("--vars", older))
    html = result.path.read_text(encoding="utf-8")
    assert result.failed_sections == []
    assert "this project has no model sync_logs__incidents" in html
    assert "sync_logs__audience_events does not exist yet" in html
    assert "open incidents</div><div class=\"kpi-detail\">incidents not available" in html
    assert 'id="open-incidents"' not in html and 'id="sync-table"' in html


def test_cli_writes_the_report_and_prints_its_path(handmade, capsys):
    work, path = handmade
    out = work / "cli" / "health.html"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SYNC_LOGS_DUCKDB_PATH", str(path))
        patch.setenv("SYNC_LOGS_SCHEMA", "report_tests")
        code = cli.main(["report", "--out", str(out), "--days", "30", "--sample-rows", "2",
                         *dbt_args(work)])
    assert code == 0
    printed = capsys.readouterr().out
    assert f"wrote {out}" in printed
    html = out.read_text(encoding="utf-8")
    # two rows sampled: the failing one (c2) and the most recent other (u3)
    assert "A sample of 2 of 5 rows" in html
    assert '"c2"' in html and '"u3"' in html and '"u2"' not in html


def test_report_size_stays_bounded_on_a_long_busy_history(report_project, tmp_path):
    """Every bound at once: 60 syncs with 4 runs a day for 120 days, 600 rows of 30 attempts
    with 1 kB payloads, 50 failure reasons, 40 audiences, 500 incidents. The page stays under
    5 MB (the demo lake's report is far smaller) and holds what the bounds say."""
    path = tmp_path / "busy.duckdb"
    create_tables(path, MARTS_SCHEMA)
    s = MARTS_SCHEMA
    day = "(timestamp '2026-06-01 00:00:00' + to_days(cast(d as integer)))"
    attempt_day = day.replace("(d as", "(a as")
    for sql in [
        f"delete from {s}.stg_sync_logs__sync_runs",
        f"""insert into {s}.stg_sync_logs__sync_runs
            select sync, sync * 1000000 + d * 10 + r, 'model ' || sync, 'dest',
                   case when r = 3 then 'failed' else 'succeeded' end, null,
                   {day} + to_hours(cast(r * 6 as integer)),
                   {day} + to_hours(cast(r * 6 as integer)) + to_seconds(cast(60 + r as integer)),
                   10, 5, 1, 9, 5, 1
            from range(60) s(sync), range(120) t(d), range(4) u(r)""",
        f"delete from {s}.sync_logs__sync_health",
        f"""insert into {s}.sync_logs__sync_health
            select sync, 'model ' || sync, 'dest', 'Dest', 480, 360, 120, 0.75, 61, 63, 63, 63,
                   7680, 7680, 7200, 480, 0.94, timestamp '2026-06-01', timestamp '2026-09-28',
                   1, 'failed', 'x' from range(60) s(sync)""",
        f"delete from {s}.stg_sync_logs__sync_changelog",
        f"""insert into {s}.stg_sync_logs__sync_changelog
            select 'l' || sync || '-' || row || '-' || a, sync, sync * 1000000 + a * 10,
                   'row-' || sync || '-' || row, 'changed', 'succeeded', null,
                   '{{"blob":"' || repeat('x', 1000) || '"}}', {attempt_day}
            from range(60) s(sync), range(10) t(row), range(30) u(a)""",
        f"delete from {s}.sync_logs__row_operations",
        f"""insert into {s}.sync_logs__row_operations
            select sync, 'row-' || sync || '-' || row, 30,
                   case when row % 2 = 0 then 'failed' else 'succeeded' end,
                   timestamp '2026-07-01' + to_minutes(cast(sync * 10 + row as integer))
            from range(60) s(sync), range(10) t(row)""",
        f"""insert into {s}.int_sync_logs__error_attempts
            select 'e' || sync || '-' || d || '-' || k, sync, 1, 'r', 'failed',
                   'Reason number ' || ((sync + k) % 50) || ' ' || repeat('y', 150),
                   'category ' || (k % 12), {day}
            from range(60) s(sync), range(120) t(d), range(5) u(k)""",
        f"""insert into {s}.sync_logs__errors
            select 'Reason ' || k, 'c', 1, 1, 1, null, null, k, k from range(500) t(k)""",
        f"""insert into {s}.sync_logs__new_errors
            select k, 'm', 1, timestamp '2026-09-01', 'Reason ' || k, 'c', 1, 1
            from range(200) t(k)""",
        f"""insert into {s}.sync_logs__audience_events
            select m, 'audience ' || m, 'dest', 'r' || k,
                   case when k % 3 = 0 then 'exited' else 'entered' end, 1, {day}
            from range(40) s(m), range(120) t(d), range(10) u(k)""",
        f"""insert into {s}.sync_logs__incidents
            select 'inc-' || k, k % 60, 'model', 'dest', 'failed_run',
                   case when k % 2 = 0 then 'critical' else 'warning' end,
                   case when k < 300 then 'open' else 'resolved' end,
                   timestamp '2026-09-01', timestamp '2026-09-02',
                   case when k < 300 then null else timestamp '2026-09-03' end, 1, 1,
                   repeat('z', 200)
            from range(500) t(k)""",
    ]:
        execute(path, sql)
    result = run_report(tmp_path, path)
    html = result.path.read_text(encoding="utf-8")
    assert result.failed_sections == []
    assert result.bytes < 5_000_000, result.bytes
    lookup = json.loads(re.search(r'<script type="application/json" id="lookup-data">(.*?)'
                                  r"</script>", html, re.S).group(1))
    assert len({(r[0], r[1]) for r in lookup["rows"]}) == 200  # 100 failing, 100 others
    assert len(lookup["rows"]) == 200 * 10  # the latest 10 of 30 attempts each
    assert max(len(r[-1]) for r in lookup["rows"]) == 303  # payloads cut at 300 (+ "...")
    def options(picker: str) -> int:
        return re.search(f'id="{picker}"[^>]*>(.*?)</select>', html).group(1).count("<option")

    assert options("sync-picker") == 50  # --max-syncs
    assert options("model-picker") == 20  # --max-models
    assert "Open incidents (100+)" in html
