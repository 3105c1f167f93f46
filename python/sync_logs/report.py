"""`sync-logs report`: one self-contained HTML file of sync health, read from the marts.

Every number comes from a bounded, aggregating query run through the user's own dbt project and
target (`sync_logs.warehouse`), so the report works on every warehouse dbt connects to. Charts
are Vega-Lite specifications made with altair; the Vega, Vega-Lite and Vega-Embed JavaScript is
bundled into the page (vl-convert's bundle), so the file opens offline. A relation the report
reads that is absent (not built yet, or from a newer package version) leaves a note in its
section instead of failing the report.
"""

from __future__ import annotations

import datetime as dt
import html
import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from sync_logs.warehouse import Relation, Warehouse, WarehouseError, sql_string

STG_RUNS = "stg_sync_logs__sync_runs"
STG_CHANGELOG = "stg_sync_logs__sync_changelog"
SYNC_HEALTH = "sync_logs__sync_health"
ERRORS = "sync_logs__errors"
NEW_ERRORS = "sync_logs__new_errors"
ERROR_ATTEMPTS = "int_sync_logs__error_attempts"
AUDIENCE_EVENTS = "sync_logs__audience_events"
ROW_OPERATIONS = "sync_logs__row_operations"
INCIDENTS = "sync_logs__incidents"
RUN_ANOMALIES = "sync_logs__run_anomalies"
# Where the error taxonomy (class, template per failed_reason) lives: the package's
# `int_sync_logs__error_categories` (macro `error_taxonomy`); older versions have none.
TAXONOMY_CANDIDATES = ("int_sync_logs__error_categories",)
RELATIONS = (STG_RUNS, STG_CHANGELOG, SYNC_HEALTH, ERRORS, NEW_ERRORS, ERROR_ATTEMPTS,
             AUDIENCE_EVENTS, ROW_OPERATIONS, INCIDENTS, RUN_ANOMALIES, *TAXONOMY_CANDIDATES)

INCIDENT_COLUMNS = ("incident_id", "sync_id", "model_name", "destination", "kind", "severity",
                    "status", "opened_at", "last_seen_at", "resolved_at", "runs_affected",
                    "rows_affected", "failed_reason")

SECTIONS = (("overview", "Overview"), ("per-sync", "Per sync"), ("errors", "Errors"),
            ("audiences", "Audiences"), ("record-lookup", "Record lookup"))

STATUS_COLORS = {"succeeded": "#2e7d32", "failed": "#c62828", "cancelled": "#9e9e9e",
                 "unknown": "#cfd8dc"}
PAYLOAD_CHARS = 300  # payload text kept per attempt in the record lookup sample


@dataclass
class ReportOptions:
    """The bounds of every query: the report's size does not grow with the history."""

    days: int = 90  # days of history charted, back from the latest run
    max_syncs: int = 50  # syncs in the per-sync charts and tables (most recently run first)
    max_models: int = 20  # models in the audience chart (most events first)
    top_errors: int = 10  # failure reasons (or templates) charted over time
    sample_rows: int = 200  # rows in the record lookup sample
    sample_attempts: int = 10  # latest attempts kept per sampled row
    title: str = "Sync health"


@dataclass
class Section:
    key: str
    title: str
    notes: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    blocks: list[str] = field(default_factory=list)  # HTML fragments, in order


@dataclass
class ReportResult:
    path: Path
    bytes: int
    seconds: float
    queries: int
    failed_sections: list[str]


def _relation_note(relation: Relation, what: str) -> str:
    if relation.in_project:
        return (f"{what}: {relation.name} does not exist yet (no relation {relation.rendered}). "
                f"Build it (`dbt build -s sync_logs.{relation.name}`) and run the report again.")
    return (f"{what}: this project has no model {relation.name} (it comes with a newer "
            "version of the sync_logs package) and no such relation beside the marts.")


def _ts_literal(value: str) -> str:
    return f"cast({sql_string(value)} as {{{{ dbt.type_timestamp() }}}})"


def _esc(value: object) -> str:
    return html.escape("" if value is None else str(value))


def _fmt(value: object, kind: str = "") -> str:
    if value is None:
        return ""
    if kind == "id":
        return str(value)
    if kind == "pct" and isinstance(value, int | float):
        return f"{value * 100:.1f} %"
    if kind == "sec" and isinstance(value, int | float):
        return f"{value:,.1f} s"
    if isinstance(value, float):
        return f"{value:,.2f}"
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,}"
    return str(value)


def html_table(rows: Sequence[dict], columns: Sequence[tuple[str, str, str]],
               table_id: str = "") -> str:
    """A plain HTML table: columns are (key, header, format kind)."""
    if not rows:
        return '<p class="empty">No rows.</p>'
    head = "".join(f"<th>{_esc(h)}</th>" for _, h, _ in columns)
    body = "".join(
        "<tr>" + "".join(
            f'<td class="{kind or "text"}">{_esc(_fmt(row.get(key), kind))}</td>'
            for key, _, kind in columns) + "</tr>"
        for row in rows
    )
    ident = f' id="{table_id}"' if table_id else ""
    return f'<div class="table-wrap"><table{ident}><thead><tr>{head}</tr></thead>' \
           f"<tbody>{body}</tbody></table></div>"


def kpi(label: str, value: str, detail: str = "", tone: str = "") -> str:
    return (f'<div class="kpi {tone}"><div class="kpi-value">{_esc(value)}</div>'
            f'<div class="kpi-label">{_esc(label)}</div>'
            f'<div class="kpi-detail">{_esc(detail)}</div></div>')


class Charts:
    """Vega-Lite specifications (made with altair) embedded as JSON, drawn by one script. The
    data of all charts is kept once in the page (`datasets`, by altair's content hash), so
    charts over the same rows share them."""

    def __init__(self):
        self.specs: dict[str, dict] = {}
        self.datasets: dict[str, list] = {}

    def add(self, chart, title: str, picker: str | None = None) -> str:
        key = f"chart-{len(self.specs) + 1}"
        spec = chart.properties(width="container").to_dict()
        spec.pop("$schema", None)
        datasets = spec.pop("datasets", {})
        self.datasets.update(datasets)
        self.specs[key] = {"spec": spec, "datasets": sorted(datasets)}
        data_picker = f' data-picker="{picker}"' if picker else ""
        return (f'<figure class="chart-box"><figcaption>{_esc(title)}</figcaption>'
                f'<div class="chart" id="{key}"{data_picker}></div></figure>')


def _status_scale(alt):
    domain = list(STATUS_COLORS)
    return alt.Scale(domain=domain, range=[STATUS_COLORS[s] for s in domain])


def _date_x(alt, rows: Sequence[dict] = (), field_name: str = "day", title: str = "day"):
    """A day axis (UTC): bars one day wide, a tick every day or every few days."""
    days = sorted({str(r[field_name])[:10] for r in rows if r.get(field_name)})
    span = 1
    if len(days) > 1:
        span = (dt.date.fromisoformat(days[-1]) - dt.date.fromisoformat(days[0])).days + 1
    step = max(1, -(-span // 12))
    return alt.X(f"utcyearmonthdate({field_name}):T", title=title,
                 axis=alt.Axis(format="%b %d", labelAngle=0,
                               tickCount={"interval": "day", "step": step}))


class ReportBuilder:
    def __init__(self, warehouse: Warehouse, options: ReportOptions):
        import altair as alt

        self.alt = alt
        self.w = warehouse
        self.o = options
        self.charts = Charts()
        self.rel = warehouse.locate(RELATIONS)
        self.syncs: list[dict] = []
        self.cutoff: str | None = None
        self.latest: str | None = None
        self.generated_at = dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")

    def r(self, name: str) -> str:
        return self.rel[name].rendered

    def ok(self, name: str) -> bool:
        return self.rel[name].exists

    # ---------------------------------------------------------------- overview
    def overview(self, s: Section) -> None:
        alt = self.alt
        if not self.ok(STG_RUNS):
            s.notes.append(_relation_note(self.rel[STG_RUNS], "Runs"))
            return
        (totals,) = self.w.records(f"""
select
    count(*) as num_runs,
    count(distinct sync_id) as num_syncs,
    count(case when status = 'succeeded' then 1 end) as num_succeeded_runs,
    count(case when status in ('failed', 'cancelled') then 1 end) as num_failed_runs,
    count(status) as num_runs_with_status,
    sum(coalesce(num_planned_add, 0) + coalesce(num_planned_change, 0)
        + coalesce(num_planned_remove, 0)) as num_planned,
    sum(coalesce(num_succeeded_add, 0) + coalesce(num_succeeded_change, 0)
        + coalesce(num_succeeded_remove, 0)) as num_succeeded,
    min(started_at) as first_run_started_at,
    max(started_at) as last_run_started_at
from {self.r(STG_RUNS)}
""", limit=1)
        self.latest = totals["last_run_started_at"]
        if self.latest:
            latest = dt.datetime.fromisoformat(str(self.latest))
            self.cutoff = (latest - dt.timedelta(days=self.o.days)).strftime("%Y-%m-%d %H:%M:%S")
        run_rate = (totals["num_succeeded_runs"] / totals["num_runs_with_status"]
                    if totals["num_runs_with_status"] else None)
        row_rate = (totals["num_succeeded"] / totals["num_planned"]
                    if totals["num_planned"] else None)
        cards = [
            kpi("syncs", _fmt(totals["num_syncs"]), f"{_fmt(totals['num_runs'])} runs"),
            kpi("run success rate", _fmt(run_rate, "pct"),
                f"{_fmt(totals['num_failed_runs'])} failed or cancelled runs",
                "bad" if run_rate is not None and run_rate < 0.95 else "good"),
            kpi("row success rate", _fmt(row_rate, "pct"),
                f"{_fmt(totals['num_succeeded'])} of {_fmt(totals['num_planned'])} planned "
                "operations succeeded",
                "bad" if row_rate is not None and row_rate < 0.95 else "good"),
        ]
        incidents = self.incident_summary(s)
        if incidents is not None:
            open_count = sum(r["num_incidents"] for r in incidents if r["status"] == "open")
            critical = sum(r["num_incidents"] for r in incidents
                           if r["status"] == "open" and r["severity"] == "critical")
            cards.insert(1, kpi("open incidents", _fmt(open_count), f"{critical} critical",
                                "bad" if open_count else "good"))
        else:
            cards.insert(1, kpi("open incidents", "n/a", "incidents not available"))
        period = (f"Runs from {totals['first_run_started_at']} to "
                  f"{totals['last_run_started_at']}; charts show the last {self.o.days} days "
                  "before the latest run.")
        s.blocks.append(f'<div class="kpis">{"".join(cards)}</div><p class="period">'
                        f"{_esc(period)}</p>")
        if self.cutoff:
            daily = self.w.records(f"""
select
    cast(started_at as date) as day,
    coalesce(status, 'unknown') as status,
    count(*) as num_runs
from {self.r(STG_RUNS)}
where started_at >= {_ts_literal(self.cutoff)}
group by cast(started_at as date), coalesce(status, 'unknown')
""", limit=self.o.days * 5 + 10)
            chart = alt.Chart(alt.Data(values=daily)).mark_bar().encode(
                x=_date_x(alt, daily),
                y=alt.Y("sum(num_runs):Q", title="runs"),
                color=alt.Color("status:N", scale=_status_scale(alt), title="run status"),
                tooltip=["day:T", "status:N", "num_runs:Q"],
            ).properties(height=220)
            s.blocks.append(self.charts.add(chart, "Runs per day by status, all syncs"))
        if incidents is not None:
            self.incident_tables(s)
        self.sync_table(s)

    def incident_summary(self, s: Section) -> list[dict] | None:
        rel = self.rel[INCIDENTS]
        if not rel.exists:
            s.notes.append(_relation_note(rel, "Incidents"))
            return None
        return self.w.records(f"""
select status, severity, count(*) as num_incidents
from {rel.rendered}
group by status, severity
""", limit=100)

    def incident_tables(self, s: Section) -> None:
        rel = self.rel[INCIDENTS]
        columns = [c for c in INCIDENT_COLUMNS if rel.has_columns(c)]
        select = ", ".join(columns)
        order_open = ("case when severity = 'critical' then 0 else 1 end, opened_at desc"
                      if rel.has_columns("severity", "opened_at") else "1")
        open_rows = self.w.records(
            f"select {select} from {rel.rendered} where status = 'open' order by {order_open}",
            limit=100)
        resolved = self.w.records(
            f"select {select} from {rel.rendered} where status = 'resolved' "
            "order by resolved_at desc", limit=20) if rel.has_columns("resolved_at") else []
        spec = [(c, c.replace("_", " "), "id" if c.endswith("_id") else "") for c in columns]
        more = "+" if len(open_rows) == 100 else ""
        s.blocks.append(f"<h3>Open incidents ({len(open_rows)}{more})</h3>"
                        + html_table(open_rows, spec, "open-incidents"))
        s.blocks.append("<h3>Recently resolved incidents</h3>"
                        + html_table(resolved, spec, "resolved-incidents"))

    def sync_table(self, s: Section) -> None:
        if not self.ok(SYNC_HEALTH):
            s.notes.append(_relation_note(self.rel[SYNC_HEALTH], "Sync health"))
            return
        self.syncs = self.w.records(f"""
select
    sync_id, model_name, destination, num_runs, run_success_rate, duration_p50_seconds,
    duration_p95_seconds, num_planned, num_succeeded, row_success_rate,
    last_run_started_at, last_run_status, last_run_error
from {self.r(SYNC_HEALTH)}
order by last_run_started_at desc, sync_id
""", limit=self.o.max_syncs)
        for row in self.syncs:
            row["sync"] = f"{row['sync_id']} · {row['model_name'] or '?'} → " \
                          f"{row['destination'] or '?'}"
        s.blocks.append("<h3>Syncs</h3>" + html_table(self.syncs, [
            ("sync_id", "sync", "id"), ("model_name", "model", ""),
            ("destination", "destination", ""), ("num_runs", "runs", ""),
            ("run_success_rate", "run success", "pct"),
            ("row_success_rate", "row success", "pct"),
            ("duration_p50_seconds", "p50", "sec"), ("duration_p95_seconds", "p95", "sec"),
            ("last_run_started_at", "last run", ""), ("last_run_status", "last status", ""),
            ("last_run_error", "last error", ""),
        ], "sync-table"))

    # ---------------------------------------------------------------- per sync
    def per_sync(self, s: Section) -> None:
        alt = self.alt
        if not self.syncs or not self.cutoff or not self.ok(STG_RUNS):
            s.notes.append("No syncs to chart: the runs or sync_logs__sync_health are missing "
                           "or empty (see Overview).")
            return
        ids = ", ".join(str(int(r["sync_id"])) for r in self.syncs)
        runs = self.w.records(f"""
select
    sync_id,
    cast(started_at as date) as day,
    coalesce(status, 'unknown') as status,
    count(*) as num_runs
from {self.r(STG_RUNS)}
where started_at >= {_ts_literal(self.cutoff)} and sync_id in ({ids})
group by sync_id, cast(started_at as date), coalesce(status, 'unknown')
""", limit=len(self.syncs) * (self.o.days + 1) * 4)
        daily = self.w.records(f"""
with runs as (
    select
        sync_id,
        cast(started_at as date) as day,
        {{{{ sync_logs.seconds_between('started_at', 'finished_at') }}}} as duration_seconds,
        coalesce(num_planned_add, 0) + coalesce(num_planned_change, 0)
            + coalesce(num_planned_remove, 0) as num_planned,
        coalesce(num_succeeded_add, 0) + coalesce(num_succeeded_change, 0)
            + coalesce(num_succeeded_remove, 0) as num_succeeded
    from {self.r(STG_RUNS)}
    where started_at >= {_ts_literal(self.cutoff)} and sync_id in ({ids})
)
select
    sync_id,
    day,
    {{{{ sync_logs.percentile_cont('duration_seconds', 0.5) }}}} as duration_p50_seconds,
    {{{{ sync_logs.percentile_cont('duration_seconds', 0.95) }}}} as duration_p95_seconds,
    sum(num_planned) as num_planned,
    sum(num_succeeded) as num_succeeded
from runs
group by sync_id, day
""", limit=len(self.syncs) * (self.o.days + 1))
        first = self.syncs[0]["sync_id"]
        options = "".join(f'<option value="{_esc(r["sync_id"])}">{_esc(r["sync"])}</option>'
                          for r in self.syncs)
        s.blocks.append(
            '<label class="picker">Sync <select id="sync-picker" data-signal="sync_pick">'
            f"{options}</select></label>"
            f'<p class="note">{len(self.syncs)} most recently run syncs; per day over the last '
            f"{self.o.days} days.</p>")

        def picked(chart):
            return chart.add_params(alt.param(name="sync_pick", value=first)).transform_filter(
                "datum.sync_id == sync_pick")

        runs_chart = picked(alt.Chart(alt.Data(values=runs)).mark_bar().encode(
            x=_date_x(alt, runs), y=alt.Y("sum(num_runs):Q", title="runs"),
            color=alt.Color("status:N", scale=_status_scale(alt), title="run status"),
            tooltip=["day:T", "status:N", "num_runs:Q"],
        )).properties(height=200)
        s.blocks.append(self.charts.add(runs_chart, "Runs per day by status", "sync-picker"))

        base = alt.Chart(alt.Data(values=daily))
        durations = picked(base.transform_fold(
            ["duration_p50_seconds", "duration_p95_seconds"], as_=["measure", "seconds"],
        ).transform_calculate(
            percentile="datum.measure == 'duration_p50_seconds' ? 'p50' : 'p95'"
        ).mark_line(point=True).encode(
            x=_date_x(alt, daily), y=alt.Y("seconds:Q", title="duration (s)"),
            color=alt.Color("percentile:N", title="daily",
                            scale=alt.Scale(domain=["p50", "p95"],
                                            range=["#1565c0", "#ef6c00"])),
            tooltip=["day:T", "percentile:N", alt.Tooltip("seconds:Q", format=",.1f")],
        )).properties(height=200)
        s.blocks.append(self.charts.add(durations, "Run duration, daily p50 and p95",
                                        "sync-picker"))
        planned = picked(base.transform_fold(
            ["num_planned", "num_succeeded"], as_=["measure", "operations"],
        ).transform_calculate(
            operations_kind="datum.measure == 'num_planned' ? 'planned' : 'succeeded'"
        ).mark_line(point=True).encode(
            x=_date_x(alt, daily), y=alt.Y("operations:Q", title="row operations"),
            color=alt.Color("operations_kind:N", title="operations",
                            scale=alt.Scale(domain=["planned", "succeeded"],
                                            range=["#78909c", "#2e7d32"])),
            tooltip=["day:T", "operations_kind:N", "operations:Q"],
        )).properties(height=200)
        s.blocks.append(self.charts.add(planned, "Planned against succeeded row operations",
                                        "sync-picker"))
        s.blocks.append("<h3>Duration and success per sync (all history)</h3>" + html_table(
            self.syncs, [("sync", "sync", ""), ("num_runs", "runs", ""),
                         ("duration_p50_seconds", "duration p50", "sec"),
                         ("duration_p95_seconds", "duration p95", "sec"),
                         ("num_planned", "planned", ""), ("num_succeeded", "succeeded", ""),
                         ("row_success_rate", "row success", "pct")], "per-sync-table"))

    # ---------------------------------------------------------------- errors
    def taxonomy(self) -> tuple[str, str, str]:
        """(join clause, class expression, template expression) over `errors` aliased e."""
        attempts = self.rel[ERROR_ATTEMPTS]
        cls = "e.error_class" if attempts.has_columns("error_class") else "e.error_category"
        template = "e.message_template" if attempts.has_columns("message_template") \
            else "e.failed_reason"
        join = ""
        for name in TAXONOMY_CANDIDATES:
            t = self.rel[name]
            if t.exists and t.has_columns("failed_reason"):
                join = f"left join {t.rendered} as t on e.failed_reason = t.failed_reason"
                if t.has_columns("error_class") and cls == "e.error_category":
                    cls = "coalesce(t.error_class, e.error_category)"
                if t.has_columns("message_template") and template == "e.failed_reason":
                    template = "coalesce(t.message_template, e.failed_reason)"
                break
        return join, cls, template

    def errors(self, s: Section) -> None:
        alt = self.alt
        if self.ok(ERROR_ATTEMPTS) and self.cutoff:
            join, cls, template = self.taxonomy()
            s.notes.append(
                "Error classes: " + ("the error taxonomy's classes" if "error_class" in cls
                                     else "the package's error categories (seed "
                                     "sync_logs_error_categories)") + ". Messages: "
                + ("the taxonomy's message templates." if "template" in template
                   else "failure reasons as the destination wrote them (no message "
                        "templates in this package version)."))
            errors_cte = f"""
with errors as (
    select
        cast(e.attempted_at as date) as day,
        {cls} as error_class,
        {template} as message
    from {self.r(ERROR_ATTEMPTS)} as e
    {join}
    where e.attempted_at >= {_ts_literal(self.cutoff)}
)"""
            classes = self.w.records(errors_cte + """
select day, error_class, count(*) as num_attempts
from errors
group by day, error_class
""", limit=(self.o.days + 1) * 30)
            messages = self.w.records(errors_cte + f""",

totals as (
    select message, count(*) as num_attempts
    from errors
    group by message
),

ranked as (
    select
        message,
        row_number() over (order by num_attempts desc, message) as message_rank
    from totals
)

select errors.day, errors.message, ranked.message_rank, count(*) as num_attempts
from errors
inner join ranked
    on errors.message = ranked.message
where ranked.message_rank <= {int(self.o.top_errors)}
group by errors.day, errors.message, ranked.message_rank
""", limit=(self.o.days + 1) * self.o.top_errors)
            for row in messages:
                text = str(row["message"] or "")
                row["message_short"] = text if len(text) <= 60 else text[:57] + "..."
            s.blocks.append(self.charts.add(alt.Chart(alt.Data(values=classes)).mark_bar().encode(
                x=_date_x(alt, classes), y=alt.Y("sum(num_attempts):Q", title="failed attempts"),
                color=alt.Color("error_class:N", title="class"),
                tooltip=["day:T", "error_class:N", "num_attempts:Q"],
            ).properties(height=220), "Failed attempts per day by error class"))
            s.blocks.append(self.charts.add(alt.Chart(alt.Data(values=messages)).mark_line(
                point=True).encode(
                x=_date_x(alt, messages), y=alt.Y("num_attempts:Q", title="failed attempts"),
                color=alt.Color("message_short:N", title="message",
                                sort=alt.EncodingSortField("message_rank"),
                                legend=alt.Legend(orient="bottom", columns=1, labelLimit=600)),
                tooltip=["day:T", "message:N", "num_attempts:Q"],
            ).properties(height=240),
                f"Top {self.o.top_errors} messages per day"))
        elif not self.ok(ERROR_ATTEMPTS):
            s.notes.append(_relation_note(self.rel[ERROR_ATTEMPTS], "Errors over time"))
        if self.ok(ERRORS):
            top = self.w.records(f"""
select failed_reason, error_category, num_attempts, num_rows, num_syncs, first_seen_at,
    last_seen_at
from {self.r(ERRORS)}
order by rank_by_rows, failed_reason
""", limit=20)
            s.blocks.append("<h3>Most common errors (all history, by rows)</h3>" + html_table(
                top, [("failed_reason", "failure reason", ""), ("error_category", "category", ""),
                      ("num_rows", "rows", ""), ("num_attempts", "attempts", ""),
                      ("num_syncs", "syncs", ""), ("first_seen_at", "first seen", ""),
                      ("last_seen_at", "last seen", "")], "top-errors"))
        else:
            s.notes.append(_relation_note(self.rel[ERRORS], "Most common errors"))
        if self.ok(NEW_ERRORS):
            new = self.w.records(f"""
select sync_id, model_name, sync_run_id, run_started_at, failed_reason, error_category,
    num_attempts, num_rows
from {self.r(NEW_ERRORS)}
order by run_started_at desc, sync_id, failed_reason
""", limit=50)
            s.blocks.append("<h3>New errors (first seen in their sync's latest run)</h3>"
                            + html_table(new, [
                                ("sync_id", "sync", "id"), ("model_name", "model", ""),
                                ("sync_run_id", "run", "id"), ("run_started_at", "run started", ""),
                                ("failed_reason", "failure reason", ""),
                                ("error_category", "category", ""), ("num_rows", "rows", ""),
                                ("num_attempts", "attempts", "")], "new-errors"))
        else:
            s.notes.append(_relation_note(self.rel[NEW_ERRORS], "New errors"))

    # ---------------------------------------------------------------- audiences
    def audiences(self, s: Section) -> None:
        alt = self.alt
        if not self.ok(AUDIENCE_EVENTS):
            s.notes.append(_relation_note(self.rel[AUDIENCE_EVENTS], "Audience events"))
            return
        if not self.cutoff:
            s.notes.append("No runs: nothing to chart.")
            return
        events = self.w.records(f"""
with events as (
    select
        coalesce(model_name, concat('sync ', cast(sync_id as {{{{ dbt.type_string() }}}})))
            as model_name,
        cast(event_at as date) as day,
        event_type
    from {self.r(AUDIENCE_EVENTS)}
    where event_at >= {_ts_literal(self.cutoff)}
),

models as (
    select model_name, count(*) as num_events
    from events
    group by model_name
),

ranked as (
    select
        model_name,
        row_number() over (order by num_events desc, model_name) as model_rank
    from models
)

select
    events.model_name,
    ranked.model_rank,
    events.day,
    count(case when events.event_type = 'entered' then 1 end) as num_entered,
    count(case when events.event_type = 'exited' then 1 end) as num_exited
from events
inner join ranked
    on events.model_name = ranked.model_name
where ranked.model_rank <= {int(self.o.max_models)}
group by events.model_name, ranked.model_rank, events.day
""", limit=(self.o.days + 1) * self.o.max_models)
        if not events:
            s.notes.append(f"No audience entries or exits in the last {self.o.days} days.")
            return
        for row in events:
            row["exits"] = -(row["num_exited"] or 0)
        models = sorted({(r["model_rank"], r["model_name"]) for r in events})
        options = "".join(f'<option value="{_esc(m)}">{_esc(m)}</option>' for _, m in models)
        s.blocks.append(
            '<label class="picker">Model <select id="model-picker" data-signal="model_pick">'
            f"{options}</select></label>"
            f'<p class="note">Rows that entered (up) and left (down) each model\'s destination '
            f"audience per day, last {self.o.days} days; the {len(models)} models with the "
            "most events.</p>")
        chart = alt.Chart(alt.Data(values=events)).add_params(
            alt.param(name="model_pick", value=models[0][1])
        ).transform_filter("datum.model_name == model_pick").transform_fold(
            ["num_entered", "exits"], as_=["event", "rows"]
        ).transform_calculate(
            event_type="datum.event == 'num_entered' ? 'entered' : 'exited'"
        ).mark_bar().encode(
            x=_date_x(alt, events), y=alt.Y("rows:Q", title="rows (exits below zero)"),
            color=alt.Color("event_type:N", title="event",
                            scale=alt.Scale(domain=["entered", "exited"],
                                            range=["#2e7d32", "#c62828"])),
            tooltip=["day:T", "event_type:N", "num_entered:Q", "num_exited:Q"],
        ).properties(height=240)
        s.blocks.append(self.charts.add(chart, "Audience entries and exits per day",
                                        "model-picker"))
        totals: dict[str, list[int]] = {}
        for row in events:
            t = totals.setdefault(row["model_name"], [0, 0])
            t[0] += row["num_entered"] or 0
            t[1] += row["num_exited"] or 0
        s.blocks.append(html_table(
            [{"model_name": m, "entered": totals[m][0], "exited": totals[m][1],
              "net": totals[m][0] - totals[m][1]} for _, m in models],
            [("model_name", "model", ""), ("entered", "entered", ""), ("exited", "exited", ""),
             ("net", "net", "")], "audience-totals"))

    # ---------------------------------------------------------------- record lookup
    def lookup(self, s: Section) -> dict:
        if not self.ok(ROW_OPERATIONS) or not self.ok(STG_CHANGELOG) or not self.ok(STG_RUNS):
            for name in (ROW_OPERATIONS, STG_CHANGELOG, STG_RUNS):
                if not self.ok(name):
                    s.notes.append(_relation_note(self.rel[name], "Record lookup"))
            return {"rows": [], "sampling": "No sample: a relation it reads is missing."}
        (count,) = self.w.records(
            f"select count(*) as num_rows, count(case when last_status = 'failed' then 1 end) "
            f"as num_failing from {self.r(ROW_OPERATIONS)}", limit=1)
        half = max(1, self.o.sample_rows // 2)
        attempts = self.w.records(f"""
with rows_ranked as (
    select
        sync_id,
        row_id,
        case when last_status = 'failed' then 1 else 0 end as is_failing,
        row_number() over (
            partition by case when last_status = 'failed' then 1 else 0 end
            order by last_attempted_at desc, sync_id, row_id
        ) as pick_rank
    from {self.r(ROW_OPERATIONS)}
    where row_id is not null
),

sampled as (
    select sync_id, row_id, is_failing
    from rows_ranked
    where (is_failing = 1 and pick_rank <= {half})
        or (is_failing = 0 and pick_rank <= {self.o.sample_rows - half})
),

attempts as (
    select
        changelog.sync_id,
        changelog.row_id,
        changelog.sync_run_id,
        runs.started_at as run_started_at,
        coalesce(changelog.batch_started_at, runs.started_at) as attempted_at,
        changelog.log_id,
        changelog.op_type,
        changelog.status,
        changelog.failed_reason,
        changelog.fields,
        runs.model_name
    from {self.r(STG_CHANGELOG)} as changelog
    inner join sampled
        on changelog.sync_id = sampled.sync_id
        and changelog.row_id = sampled.row_id
    left join {self.r(STG_RUNS)} as runs
        on changelog.sync_id = runs.sync_id
        and changelog.sync_run_id = runs.sync_run_id
),

numbered as (
    select
        sync_id, row_id, sync_run_id, run_started_at, attempted_at, log_id, op_type, status,
        failed_reason, fields, model_name,
        row_number() over (
            partition by sync_id, row_id
            order by run_started_at desc, sync_run_id desc, attempted_at desc, log_id desc
        ) as latest_rank
    from attempts
)

select
    sync_id, row_id, sync_run_id, run_started_at, attempted_at, op_type, status,
    failed_reason, fields, model_name, latest_rank
from numbered
where latest_rank <= {int(self.o.sample_attempts)}
""", limit=self.o.sample_rows * self.o.sample_attempts)
        rows = []
        for a in attempts:
            payload = a["fields"]
            if payload is not None and len(str(payload)) > PAYLOAD_CHARS:
                payload = str(payload)[:PAYLOAD_CHARS] + "..."
            rows.append([a["sync_id"], a["row_id"], a["model_name"], a["sync_run_id"],
                         a["run_started_at"], a["attempted_at"], a["op_type"], a["status"],
                         a["failed_reason"], payload])
        rows.sort(key=lambda r: (str(r[1]), r[0] or 0, str(r[4] or ""), r[3] or 0,
                                 str(r[5] or "")))
        sampled = len({(r[0], r[1]) for r in rows})
        sampling = (
            f"A sample of {sampled:,} of {count['num_rows']:,} rows (sync, row_id) in "
            f"sync_logs__row_operations: up to {half:,} rows whose latest attempt failed "
            f"({count['num_failing']:,} such rows) and up to {self.o.sample_rows - half:,} "
            "other rows, the most recently attempted first; for each, its latest "
            f"{self.o.sample_attempts} attempts, payloads cut to {PAYLOAD_CHARS} characters. "
            "Rows outside the sample: `dbt run-operation sync_logs.lookup_record --args "
            "'{row_id: ...}'`.")
        return {"rows": rows, "sampling": sampling,
                "columns": ["sync_id", "row_id", "model_name", "sync_run_id", "run_started_at",
                            "attempted_at", "op_type", "status", "failed_reason", "fields"]}

    # ---------------------------------------------------------------- all
    def build(self) -> tuple[list[Section], dict]:
        sections = {key: Section(key, title) for key, title in SECTIONS}
        lookup_data: dict = {"rows": [], "sampling": "", "columns": []}
        steps: list[tuple[str, Callable[[Section], object]]] = [
            ("overview", self.overview), ("per-sync", self.per_sync),
            ("errors", self.errors), ("audiences", self.audiences),
            ("record-lookup", self.lookup)]
        for key, step in steps:
            try:
                value = step(sections[key])
                if key == "record-lookup":
                    lookup_data = value
            except WarehouseError as error:
                sections[key].errors.append(str(error))
        return list(sections.values()), lookup_data


def render_html(title: str, subtitle: str, sections: Sequence[Section], charts: Charts,
                lookup: dict, javascript: str) -> str:
    from sync_logs.report_page import PAGE_CSS, PAGE_SCRIPT

    nav = "".join(f'<a href="#{s.key}">{_esc(s.title)}</a>' for s in sections)
    body = []
    for s in sections:
        parts = [f'<section id="{s.key}"><h2>{_esc(s.title)}</h2>']
        parts += [f'<p class="error">This section could not be read: {_esc(e)}</p>'
                  for e in s.errors]
        parts += [f'<p class="note">{_esc(n)}</p>' for n in s.notes]
        if s.key == "record-lookup":
            parts.append(
                f'<p class="sampling" id="lookup-sampling">{_esc(lookup.get("sampling"))}</p>'
                '<label class="picker">row_id <input id="lookup-search" type="search" '
                'list="lookup-ids" autocomplete="off" placeholder="type a row_id"></label>'
                '<datalist id="lookup-ids"></datalist>'
                '<p id="lookup-status" class="note"></p><div id="lookup-results"></div>')
        parts += s.blocks
        parts.append("</section>")
        body.append("".join(parts))

    def script_json(value: object) -> str:
        return json.dumps(value, default=str, separators=(",", ":")).replace("</", "<\\/")

    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{_esc(title)}</title>
<style>{PAGE_CSS}</style></head>
<body><header><h1>{_esc(title)}</h1><p class="subtitle">{_esc(subtitle)}</p>
<nav>{nav}</nav></header><main>{"".join(body)}</main>
<script type="application/json" id="chart-specs">{script_json(charts.specs)}</script>
<script type="application/json" id="chart-data">{script_json(charts.datasets)}</script>
<script type="application/json" id="lookup-data">{script_json(lookup)}</script>
<script type="module">{javascript}</script>
<script type="module">{PAGE_SCRIPT}</script>
</body></html>
"""


def write_report(out: Path, warehouse: Warehouse, options: ReportOptions | None = None
                 ) -> ReportResult:
    """Queries the marts, writes the HTML file to `out`; returns its size and timings."""
    import vl_convert

    started = time.monotonic()
    options = options or ReportOptions()
    builder = ReportBuilder(warehouse, options)
    sections, lookup = builder.build()
    subtitle = (f"sync_logs report, generated {builder.generated_at} from target type "
                f"{warehouse.adapter_type}; latest run {builder.latest or 'none'}.")
    page = render_html(options.title, subtitle, sections, builder.charts, lookup,
                       vl_convert.javascript_bundle())
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(page, encoding="utf-8")
    return ReportResult(path=out, bytes=out.stat().st_size,
                        seconds=time.monotonic() - started, queries=warehouse.queries,
                        failed_sections=[s.title for s in sections if s.errors])
