"""`sync-logs notify` over the hand-made `sync_logs__incidents` (tests/report/handmade_marts.py)
in DuckDB, read and recorded through dbt, posting to a loopback webhook (tests/webhook_stub.py)
that records every request and answers what each test scripts (429 and 500 before 200, ...).

The expected messages are written by hand from the three hand-made incidents; they are sent
oldest change first: inc-101-failed (resolved 10-03 06:00), then inc-202-cancelled and
inc-202-new-error (opened 10-03 07:00; ties by id)."""

from pathlib import Path

import pytest
from handmade_marts import MARTS_SCHEMA, PROJECT, SCHEMA, dbt_args, execute

from sync_logs import cli
from sync_logs.notify import NotifyError, NotifyOptions, Poster, notify, retry_after_seconds
from sync_logs.warehouse import Warehouse
from webhook_stub import SECRET, webhook

ORDER = [("inc-101-failed", "resolved"), ("inc-202-cancelled", "open"),
         ("inc-202-new-error", "open")]


@pytest.fixture(scope="module")
def warehouse(handmade):
    work, path = handmade
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SYNC_LOGS_DUCKDB_PATH", str(path))
        patch.setenv("SYNC_LOGS_SCHEMA", SCHEMA)
        yield Warehouse(dbt_args(work)), path


def options(fmt: str, channel: str, **kwargs) -> NotifyOptions:
    kwargs = {"min_interval_seconds": 0.0, "backoff_seconds": 0.05, **kwargs}
    return NotifyOptions(fmt=fmt, channel=channel, url_env="SYNC_LOGS_TEST_WEBHOOK", **kwargs)


def run(warehouse, monkeypatch, recorder, opts) -> tuple:
    monkeypatch.setenv("SYNC_LOGS_TEST_WEBHOOK", recorder.url)
    lines: list[str] = []
    return notify(warehouse, opts, out=lines.append), lines


def sent_rows(path: Path, channel: str) -> list[tuple]:
    return execute(path, f"select incident_id, status from {MARTS_SCHEMA}.sync_logs_notifications "
                         f"where channel = '{channel}' order by incident_id, status")


def test_json_payloads_carry_each_incident(warehouse, monkeypatch):
    db, path = warehouse
    with webhook() as hook:
        result, _ = run(db, monkeypatch, hook, options("json", "t-json"))
    assert result.sent == ORDER and result.failed == []
    first = hook.bodies()[0]
    assert first == {
        "event": "incident.resolved",
        "title": "Resolved: failed_run on sync 101 (High-intent trial users → salesforce) "
                 "(critical)",
        "text": "Open from 2026-10-02 06:00:00 to 2026-10-03 06:00:00.\n"
                "Affected: 1 run(s), 1 row(s).\n"
                "Sample error: Invalid email address\n"
                "Incident inc-101-failed.",
        "incident": {
            "incident_id": "inc-101-failed", "sync_id": 101,
            "model_name": "High-intent trial users", "destination": "salesforce",
            "kind": "failed_run", "severity": "critical", "status": "resolved",
            "opened_at": "2026-10-02 06:00:00", "last_seen_at": "2026-10-02 06:00:00",
            "resolved_at": "2026-10-03 06:00:00", "runs_affected": 1, "rows_affected": 1,
            "failed_reason": "Invalid email address",
        },
        "report_url": None,
        "source": "sync_logs",
    }
    assert [b["event"] for b in hook.bodies()] == ["incident.resolved", "incident.opened",
                                                   "incident.opened"]
    assert hook.bodies()[2]["title"] == ("New warning incident: new_error_class on sync 202 "
                                         "(Churn risk → braze)")
    assert [p for _, p, _ in hook.requests] == [f"/services/{SECRET}"] * 3
    assert sent_rows(path, "t-json") == sorted(ORDER)


def test_slack_payloads_are_mrkdwn_blocks(warehouse, monkeypatch):
    db, path = warehouse
    with webhook() as hook:
        run(db, monkeypatch, hook, options("slack", "t-slack", report_url="https://ci/run/7"))
    second = hook.bodies()[1]
    assert second == {
        "text": "New critical incident: failed_run on sync 202 (Churn risk → braze). "
                "Opened 2026-10-03 07:00:00, last seen 2026-10-03 07:00:00. "
                "Affected: 1 run(s), 1 row(s). "
                "Sample error: Rate limit exceeded, retry later "
                "Incident inc-202-cancelled. Report: https://ci/run/7",
        "blocks": [
            {"type": "section", "text": {
                "type": "mrkdwn",
                "text": ":rotating_light: *New critical incident: failed_run on sync 202 "
                        "(Churn risk → braze)*"}},
            {"type": "section", "text": {
                "type": "mrkdwn",
                "text": "Opened 2026-10-03 07:00:00, last seen 2026-10-03 07:00:00.\n"
                        "Affected: 1 run(s), 1 row(s).\n"
                        "Sample error: Rate limit exceeded, retry later\n"
                        "Incident inc-202-cancelled.\n"
                        "Report: https://ci/run/7"}},
        ],
    }
    assert hook.bodies()[0]["blocks"][0]["text"]["text"].startswith(":white_check_mark: *Resolved")
    assert hook.bodies()[2]["blocks"][0]["text"]["text"].startswith(":warning: *New warning")


def test_teams_payloads_are_adaptive_cards(warehouse, monkeypatch):
    db, path = warehouse
    with webhook() as hook:
        run(db, monkeypatch, hook, options("teams", "t-teams", include_errors=False))
    first = hook.bodies()[0]
    assert first["type"] == "message"
    (attachment,) = first["attachments"]
    assert attachment["contentType"] == "application/vnd.microsoft.card.adaptive"
    card = attachment["content"]
    assert card["type"] == "AdaptiveCard" and card["version"] == "1.4"
    assert [(b["type"], b["text"]) for b in card["body"]] == [
        ("TextBlock", "Resolved: failed_run on sync 101 (High-intent trial users → salesforce) "
                      "(critical)"),
        ("TextBlock", "Open from 2026-10-02 06:00:00 to 2026-10-03 06:00:00."),
        ("TextBlock", "Affected: 1 run(s), 1 row(s)."),
        ("TextBlock", "Incident inc-101-failed."),  # --no-errors: no sample error
    ]
    assert card["body"][0]["color"] == "Good"
    assert hook.bodies()[1]["attachments"][0]["content"]["body"][0]["color"] == "Attention"
    assert len(hook.requests) == 3


def test_retries_429_and_500_honouring_retry_after_then_paces_posts(warehouse, monkeypatch):
    db, path = warehouse
    script = [(429, {"Retry-After": "1"}), (500, {})]
    with webhook(script) as hook:
        result, lines = run(db, monkeypatch, hook,
                            options("json", "t-retry", min_interval_seconds=0.3))
    assert result.sent == ORDER and result.attempts == 5
    times = [t for t, _, _ in hook.requests]
    bodies = hook.bodies()
    # the first message three times (429, 500, 200), then the two others once each
    assert [b["incident"]["incident_id"] for b in bodies] == [
        "inc-101-failed", "inc-101-failed", "inc-101-failed", "inc-202-cancelled",
        "inc-202-new-error"]
    assert times[1] - times[0] >= 1.0  # Retry-After: 1, longer than the 0.05 s backoff
    # self rate-limit: 0.3 s between two posts (measured on arrival: a little slack)
    assert all(b - a >= 0.25 for a, b in zip(times, times[1:], strict=False))
    assert sent_rows(path, "t-retry") == sorted(ORDER)


def test_a_webhook_that_keeps_failing_leaves_the_rest_pending(warehouse, monkeypatch):
    db, path = warehouse
    with webhook([(503, {}), (503, {}), (503, {})]) as hook:
        result, lines = run(db, monkeypatch, hook, options("json", "t-down", retries=2))
    assert len(hook.requests) == 3  # one post and two retries, then it stops
    assert result.sent == [] and result.failed == [
        ("inc-101-failed", "resolved", "the webhook kept failing: HTTP 503 after 3 attempt(s)")]
    assert execute(path, f"select count(*) from {MARTS_SCHEMA}.sync_logs_notifications "
                         "where channel = 't-down'") == [(0,)]
    with webhook([(400, {})]) as hook:  # a client error is not retried
        result, _ = run(db, monkeypatch, hook, options("json", "t-down"))
    assert len(hook.requests) == 1 and result.failed[0][2] == "the webhook answered HTTP 400"
    with webhook() as hook:  # the next invocation sends everything
        result, _ = run(db, monkeypatch, hook, options("json", "t-down"))
    assert result.sent == ORDER


def test_each_incident_status_is_sent_once_across_invocations(warehouse, monkeypatch):
    db, path = warehouse
    with webhook() as hook:
        first, _ = run(db, monkeypatch, hook, options("json", "t-dedup"))
        second, lines = run(db, monkeypatch, hook, options("json", "t-dedup"))
    assert first.sent == ORDER and second.sent == [] and len(hook.requests) == 3
    assert lines == ["nothing to notify on channel 't-dedup'"]
    # the cancelled sync recovers: only the resolution of that incident is new
    table = f"{MARTS_SCHEMA}.sync_logs__incidents"
    execute(path, f"update {table} set status = 'resolved', "
                  "resolved_at = timestamp '2026-10-04 07:00:00' "
                  "where incident_id = 'inc-202-cancelled'")
    try:
        with webhook() as hook:
            third, _ = run(db, monkeypatch, hook, options("json", "t-dedup"))
            fourth, _ = run(db, monkeypatch, hook, options("json", "t-dedup"))
    finally:
        execute(path, f"update {table} set status = 'open', resolved_at = null "
                      "where incident_id = 'inc-202-cancelled'")
    assert third.sent == [("inc-202-cancelled", "resolved")] and fourth.sent == []
    assert [b["event"] for b in hook.bodies()] == ["incident.resolved"]
    assert sent_rows(path, "t-dedup") == sorted([*ORDER, ("inc-202-cancelled", "resolved")])


def test_dry_run_prints_and_sends_nothing(warehouse, monkeypatch):
    db, path = warehouse
    with webhook() as hook:
        result, lines = run(db, monkeypatch, hook, options("slack", "t-dry", dry_run=True))
    assert hook.requests == [] and result.sent == []
    text = "\n".join(lines)
    assert "--- Resolved: failed_run on sync 101" in text and '"blocks"' in text
    assert lines[-1] == "dry run: 3 message(s) for channel 't-dry' not sent"
    assert execute(path, f"select count(*) from {MARTS_SCHEMA}.sync_logs_notifications "
                         "where channel = 't-dry'") == [(0,)]


def test_cli_reads_the_url_from_env_or_file_and_never_prints_it(handmade, tmp_path,
                                                                capfd, caplog):
    work, path = handmade
    args = ["notify", "--format", "slack", "--min-interval", "0", *dbt_args(work)]
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SYNC_LOGS_DUCKDB_PATH", str(path))
        patch.setenv("SYNC_LOGS_SCHEMA", SCHEMA)
        with webhook([(429, {"Retry-After": "0"}), (500, {})]) as hook:
            patch.setenv("SYNC_LOGS_WEBHOOK_URL", hook.url)
            assert cli.main([*args, "--channel", "t-cli-env"]) == 0
            url_file = tmp_path / "webhook.url"
            url_file.write_text(hook.url + "\n")
            patch.delenv("SYNC_LOGS_WEBHOOK_URL")
            assert cli.main([*args, "--channel", "t-cli-file",
                             "--webhook-url-file", str(url_file)]) == 0
        assert len(hook.requests) == 3 + 2 + 3
        # a webhook that refuses: the error names the failure, not the URL
        with webhook([(500, {})] * 10) as hook:
            patch.setenv("SYNC_LOGS_WEBHOOK_URL", hook.url)
            assert cli.main([*args, "--channel", "t-cli-down", "--retries", "1"]) == 1
        patch.delenv("SYNC_LOGS_WEBHOOK_URL")
        assert cli.main([*args, "--channel", "t-cli-none"]) == 2  # no URL: a clear error
    captured = capfd.readouterr()
    output = captured.out + captured.err + caplog.text
    assert "the webhook kept failing: HTTP 500 after 2 attempt(s)" in output
    assert "no webhook URL: the environment variable SYNC_LOGS_WEBHOOK_URL is empty or unset" \
        in output
    assert "3 message(s) sent to channel 't-cli-env'" in output
    logs = "".join(p.read_text(errors="replace") for p in work.rglob("*.log"))
    for folder in (PROJECT / "logs", Path("logs")):
        logs += "".join(p.read_text(errors="replace") for p in folder.glob("*.log"))
    for text in (output, logs):
        assert SECRET not in text and "s3cr3t" not in text
    # and the command line has no way to take it
    with pytest.raises(SystemExit):
        cli.main(["notify", "--webhook-url", "https://hooks.example/x"])


def test_retry_after_reads_seconds_and_http_dates():
    assert retry_after_seconds("3") == 3.0
    assert retry_after_seconds(" 0.5 ") == 0.5
    assert retry_after_seconds("Wed, 21 Oct 2015 07:28:10 GMT",
                               now=1445412480.0) == 10.0  # 07:28:00 + 10 s
    assert retry_after_seconds("soon") is None and retry_after_seconds(None) is None
    with pytest.raises(NotifyError, match="unknown format 'xml'"):
        notify(None, NotifyOptions(fmt="xml"))


def test_a_malformed_url_fails_without_quoting_it():
    url = f"http://127.0.0.1:notaport/services/{SECRET}"
    with pytest.raises(NotifyError) as error:
        Poster(url, NotifyOptions(min_interval_seconds=0.0)).post({"text": "x"})
    assert str(error.value) == "the webhook request failed (InvalidURL)"
    assert error.value.__cause__ is None and error.value.__suppress_context__
    assert "s3cr3t" not in repr(Poster(url, NotifyOptions()))
