"""`sync-logs notify`: post new and resolved incidents to a chat or HTTP webhook, once each.

Reads `sync_logs__incidents` through the user's dbt project and target, leaves out every
(incident, status) already sent to the same channel (state in a small table in the warehouse,
`sync_logs_notifications`, created and appended through dbt), posts one message per
(incident, status) in Slack, Microsoft Teams or plain JSON form, and records what was sent.

HTTP is the standard library's urllib. 429 and 5xx answers (and connection errors) are
retried with exponential backoff, honouring Retry-After; posts are spaced by a minimum
interval. The webhook URL is read from an environment variable or a file, never from the
command line, and never printed: errors name the variable or file, not the URL.
"""

from __future__ import annotations

import datetime as dt
import email.utils
import http.client
import json
import os
import random
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from sync_logs.warehouse import Relation, Warehouse, sql_string

INCIDENTS = "sync_logs__incidents"
STATE_TABLE = "sync_logs_notifications"
FORMATS = ("slack", "teams", "json")
DEFAULT_URL_ENV = "SYNC_LOGS_WEBHOOK_URL"
INCIDENT_COLUMNS = ("incident_id", "sync_id", "model_name", "destination", "kind", "severity",
                    "status", "opened_at", "last_seen_at", "resolved_at", "runs_affected",
                    "rows_affected", "failed_reason")
REQUIRED_COLUMNS = ("incident_id", "status")
MAX_REASON_CHARS = 300


class NotifyError(ValueError):
    """Bad options, a missing webhook URL, or a webhook that kept refusing."""


@dataclass
class NotifyOptions:
    fmt: str = "json"
    channel: str | None = None  # dedup key: defaults to the format
    url_env: str | None = DEFAULT_URL_ENV
    url_file: Path | None = None
    dry_run: bool = False
    baseline: bool = False  # record everything pending as sent, post nothing
    max_messages: int = 20
    retries: int = 5
    backoff_seconds: float = 1.0
    max_backoff_seconds: float = 60.0
    min_interval_seconds: float = 1.0
    timeout_seconds: float = 10.0
    include_errors: bool = True
    report_url: str | None = None
    state_schema: str | None = None
    state_database: str | None = None
    state_table: str = STATE_TABLE

    @property
    def channel_name(self) -> str:
        return self.channel or self.fmt


@dataclass
class NotifyResult:
    pending: int = 0
    sent: list[tuple[str, str]] = field(default_factory=list)
    failed: list[tuple[str, str, str]] = field(default_factory=list)  # id, status, reason
    remaining: int = 0
    messages: list[dict] = field(default_factory=list)  # payloads, for --dry-run
    attempts: int = 0


# ------------------------------------------------------------------ messages
def _text(value: object) -> str:
    return "" if value is None else str(value)


def headline(incident: Mapping) -> str:
    """One line: what happened, where."""
    status = incident.get("status")
    severity = _text(incident.get("severity")) or "unknown"
    kind = _text(incident.get("kind")) or "incident"
    where = f"sync {_text(incident.get('sync_id'))}"
    model, destination = incident.get("model_name"), incident.get("destination")
    if model or destination:
        where += f" ({_text(model) or '?'} → {_text(destination) or '?'})"
    if status == "resolved":
        return f"Resolved: {kind} on {where} ({severity})"
    return f"New {severity} incident: {kind} on {where}"


def details(incident: Mapping, include_errors: bool) -> list[str]:
    lines = []
    if incident.get("status") == "resolved":
        lines.append(f"Open from {_text(incident.get('opened_at'))} to "
                     f"{_text(incident.get('resolved_at'))}.")
    else:
        lines.append(f"Opened {_text(incident.get('opened_at'))}, last seen "
                     f"{_text(incident.get('last_seen_at'))}.")
    counts = []
    if incident.get("runs_affected") is not None:
        counts.append(f"{incident['runs_affected']} run(s)")
    if incident.get("rows_affected") is not None:
        counts.append(f"{incident['rows_affected']} row(s)")
    if counts:
        lines.append("Affected: " + ", ".join(counts) + ".")
    reason = incident.get("failed_reason")
    if include_errors and reason:
        reason = str(reason)
        if len(reason) > MAX_REASON_CHARS:
            reason = reason[:MAX_REASON_CHARS - 3] + "..."
        lines.append(f"Sample error: {reason}")
    lines.append(f"Incident {_text(incident.get('incident_id'))}.")
    return lines


def payload(incident: Mapping, fmt: str, include_errors: bool = True,
            report_url: str | None = None) -> dict:
    """The JSON body for one (incident, status) in the webhook's format."""
    title = headline(incident)
    lines = details(incident, include_errors)
    if report_url:
        lines.append(f"Report: {report_url}")
    if fmt == "slack":
        emoji = ":white_check_mark:" if incident.get("status") == "resolved" else (
            ":rotating_light:" if incident.get("severity") == "critical" else ":warning:")
        return {
            "text": f"{title}. " + " ".join(lines),
            "blocks": [
                {"type": "section", "text": {"type": "mrkdwn", "text": f"{emoji} *{title}*"}},
                {"type": "section", "text": {"type": "mrkdwn", "text": "\n".join(lines)}},
            ],
        }
    if fmt == "teams":
        color = "Good" if incident.get("status") == "resolved" else (
            "Attention" if incident.get("severity") == "critical" else "Warning")
        body = [{"type": "TextBlock", "text": title, "weight": "Bolder", "size": "Medium",
                 "color": color, "wrap": True}]
        body += [{"type": "TextBlock", "text": line, "wrap": True} for line in lines]
        return {
            "type": "message",
            "attachments": [{
                "contentType": "application/vnd.microsoft.card.adaptive",
                "contentUrl": None,
                "content": {
                    "$schema": "http://adaptivecards.io/schemas/adaptive-card.json",
                    "type": "AdaptiveCard",
                    "version": "1.4",
                    "body": body,
                },
            }],
        }
    if fmt == "json":
        fields = {c: incident.get(c) for c in INCIDENT_COLUMNS if c in incident}
        if not include_errors:
            fields.pop("failed_reason", None)
        event = "incident.resolved" if incident.get("status") == "resolved" else "incident.opened"
        return {"event": event, "title": title, "text": "\n".join(lines),
                "incident": fields, "report_url": report_url, "source": "sync_logs"}
    raise NotifyError(f"unknown format {fmt!r}: one of {', '.join(FORMATS)}")


# ------------------------------------------------------------------ HTTP
def read_webhook_url(options: NotifyOptions) -> str:
    """The URL from the file or the environment variable; the errors never show it."""
    if options.url_file is not None:
        try:
            url = Path(options.url_file).read_text(encoding="utf-8").strip()
        except OSError as error:
            raise NotifyError(f"cannot read the webhook URL file {options.url_file}: "
                              f"{error.strerror}") from None
        source = f"the file {options.url_file}"
    else:
        name = options.url_env or DEFAULT_URL_ENV
        url = os.environ.get(name, "").strip()
        source = f"the environment variable {name}"
    if not url:
        raise NotifyError(f"no webhook URL: {source} is empty or unset")
    if not url.lower().startswith(("https://", "http://")):
        raise NotifyError(f"the webhook URL in {source} must start with https:// (or http://)")
    return url


def retry_after_seconds(value: str | None, now: float | None = None) -> float | None:
    """Retry-After as seconds: a number of seconds or an HTTP date; None when absent or bad."""
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=dt.timezone.utc)
    return max(0.0, when.timestamp() - (now if now is not None else time.time()))


class Poster:
    """POSTs JSON with retries (429, 5xx, connection errors), backoff honouring Retry-After,
    and a minimum interval between requests."""

    def __init__(self, url: str, options: NotifyOptions,
                 sleep: Callable[[float], None] = time.sleep,
                 clock: Callable[[], float] = time.monotonic):
        self._url = url
        self.options = options
        self.sleep = sleep
        self.clock = clock
        self.last_request: float | None = None
        self.attempts = 0

    def __repr__(self) -> str:  # never show the URL
        return "Poster(<webhook>)"

    def _pace(self) -> None:
        if self.last_request is not None:
            wait = self.options.min_interval_seconds - (self.clock() - self.last_request)
            if wait > 0:
                self.sleep(wait)
        self.last_request = self.clock()

    def post(self, body: dict) -> None:
        data = json.dumps(body, default=str).encode("utf-8")
        tries = self.options.retries + 1
        for attempt in range(tries):
            self._pace()
            self.attempts += 1
            request = urllib.request.Request(
                self._url, data=data, method="POST",
                headers={"Content-Type": "application/json; charset=utf-8",
                         "User-Agent": "sync-logs-notify"})
            retry_after = None
            try:
                with urllib.request.urlopen(request, timeout=self.options.timeout_seconds) as r:
                    r.read()
                    return
            except urllib.error.HTTPError as error:
                code = error.code
                retry_after = retry_after_seconds(error.headers.get("Retry-After"))
                error.close()
                if code != 429 and code < 500:
                    raise NotifyError(f"the webhook answered HTTP {code}") from None
                reason = f"HTTP {code}"
            except (urllib.error.URLError, TimeoutError, ConnectionError) as error:
                inner = getattr(error, "reason", error)
                reason = f"connection error ({type(inner).__name__})"
            except (ValueError, http.client.HTTPException, OSError) as error:
                # e.g. a malformed URL: the exception's text may quote the URL, so name its type
                raise NotifyError(f"the webhook request failed ({type(error).__name__})") from None
            if attempt == tries - 1:
                raise NotifyError(f"the webhook kept failing: {reason} after {tries} "
                                  "attempt(s)")
            backoff = min(self.options.max_backoff_seconds,
                          self.options.backoff_seconds * (2 ** attempt))
            backoff *= 1 + random.random() * 0.1
            wait = max(backoff, retry_after or 0.0)
            wait = min(wait, max(self.options.max_backoff_seconds, retry_after or 0.0))
            self.sleep(wait)
        raise AssertionError("unreachable")


# ------------------------------------------------------------------ warehouse
def state_location(warehouse: Warehouse, options: NotifyOptions
                   ) -> tuple[Relation, Relation]:
    """The incidents relation and the state table (beside it unless told otherwise)."""
    found = warehouse.locate([INCIDENTS])
    incidents = found[INCIDENTS]
    if not incidents.exists:
        return incidents, Relation(name=options.state_table, in_project=False)
    schema = options.state_schema or incidents.schema
    database = options.state_database or incidents.database
    state = warehouse.locate([], extra={"state": (database, schema, options.state_table)})
    return incidents, state["state"]


def pending_incidents(warehouse: Warehouse, incidents: Relation, state: Relation,
                      channel: str, limit: int) -> tuple[list[dict], int]:
    """(incident, status) pairs not yet sent to `channel`, oldest change first (at most
    `limit`), and how many there are in all."""
    missing = [c for c in REQUIRED_COLUMNS if not incidents.has_columns(c)]
    if missing:
        raise NotifyError(f"{incidents.rendered} has no column(s) {', '.join(missing)}: "
                          "is it the sync_logs__incidents of the sync_logs package?")
    columns = [c for c in INCIDENT_COLUMNS if incidents.has_columns(c)]
    text = "{{ dbt.type_string() }}"
    select = ",\n        ".join(
        f"cast(incidents.{c} as {text}) as {c}" if c == "incident_id" else f"incidents.{c}"
        for c in columns)
    changed_at = ("coalesce(incidents.resolved_at, incidents.opened_at)"
                  if incidents.has_columns("resolved_at", "opened_at") else "null")
    unsent = ""
    if state.exists:
        unsent = f"""
    left join {state.rendered} as sent
        on cast(incidents.incident_id as {text}) = sent.incident_id
        and incidents.status = sent.status
        and sent.channel = {sql_string(channel)}
    where sent.incident_id is null"""
    sql = f"""
with pending as (
    select
        {select},
        {changed_at} as changed_at
    from {incidents.rendered} as incidents{unsent}
),

counted as (
    select
        pending.*,
        count(*) over () as num_pending,
        row_number() over (order by changed_at, incident_id, status) as pending_rank
    from pending
    where status in ('open', 'resolved')
)

select *
from counted
where pending_rank <= {int(limit)}
"""
    rows = warehouse.records(sql, limit=limit)
    rows.sort(key=lambda r: r["pending_rank"])
    total = rows[0]["num_pending"] if rows else 0
    for row in rows:
        row.pop("num_pending", None)
        row.pop("pending_rank", None)
        row.pop("changed_at", None)
    return rows, int(total)


def record_sent(warehouse: Warehouse, state: Relation, channel: str,
                sent: Sequence[tuple[str, str]], sent_at: str) -> None:
    if not sent:
        return
    warehouse.run_operation("record_notifications", {
        "database": state.database,
        "schema": state.schema,
        "identifier": state.identifier,
        "channel": channel,
        "sent_at": sent_at,
        "notifications": [[incident_id, status] for incident_id, status in sent],
    })


def notify(warehouse: Warehouse, options: NotifyOptions, out: Callable[[str], None] = print,
           poster: Poster | None = None) -> NotifyResult:
    """Sends what is pending (or prints it with dry_run); returns what happened."""
    if options.fmt not in FORMATS:
        raise NotifyError(f"unknown format {options.fmt!r}: one of {', '.join(FORMATS)}")
    result = NotifyResult()
    incidents, state = state_location(warehouse, options)
    if not incidents.exists:
        raise NotifyError(
            f"no relation {INCIDENTS} ({'not built yet: dbt build -s sync_logs.' + INCIDENTS if incidents.in_project else 'this sync_logs version has no incidents mart'}); "  # noqa: E501
            "nothing to notify")
    channel = options.channel_name
    batch, result.pending = pending_incidents(warehouse, incidents, state, channel,
                                              options.max_messages)
    result.remaining = result.pending - len(batch)
    if options.baseline:
        # Everything pending now counts as sent; nothing is posted.
        everything, _ = pending_incidents(warehouse, incidents, state, channel, 1_000_000)
        if not options.dry_run:
            record_sent(warehouse, state, channel,
                        [(r["incident_id"], r["status"]) for r in everything], _now())
        result.sent = [(r["incident_id"], r["status"]) for r in everything]
        result.remaining = 0
        out(f"baseline: {len(everything)} incident change(s) recorded as sent to channel "
            f"{channel!r} without posting" + (" (dry run: nothing recorded)"
                                              if options.dry_run else ""))
        return result
    messages = [(row, payload(row, options.fmt, options.include_errors, options.report_url))
                for row in batch]
    result.messages = [m for _, m in messages]
    if options.dry_run:
        for row, message in messages:
            out(f"--- {headline(row)} [{row['incident_id']} {row['status']}]")
            out(json.dumps(message, indent=2, ensure_ascii=False, default=str))
        out(f"dry run: {len(messages)} message(s) for channel {channel!r} not sent"
            + (f"; {result.remaining} more pending" if result.remaining else ""))
        return result
    if not messages:
        out(f"nothing to notify on channel {channel!r}")
        return result
    poster = poster or Poster(read_webhook_url(options), options)
    try:
        for row, message in messages:
            key = (row["incident_id"], row["status"])
            try:
                poster.post(message)
            except NotifyError as error:
                result.failed.append((*key, str(error)))
                out(f"not sent: {headline(row)} [{key[0]} {key[1]}]: {error}")
                break  # the webhook is refusing: keep the rest for the next invocation
            result.sent.append(key)
            out(f"sent: {headline(row)} [{key[0]} {key[1]}]")
    finally:
        result.attempts = poster.attempts
        record_sent(warehouse, state, channel, result.sent, _now())
    unsent = result.pending - len(result.sent)
    out(f"{len(result.sent)} message(s) sent to channel {channel!r}"
        + (f"; {unsent} still pending" if unsent else ""))
    return result


def _now() -> str:
    return dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M:%S")
