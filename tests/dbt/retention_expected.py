"""What retention must delete, computed in plain Python from the changelog rows and the runs'
start times: an independent statement of the anchor rules of `retention_doomed_rows_sql`.

Per (sync_id, row_id), a run's attempts of the row (a "row run") are kept whole when the run
is inside the retention window, or is the row's latest run, or the latest run before the
horizon with a succeeded attempt, or holds a succeeded `added`/`removed` attempt, or holds
the maximal success time or the latest succeeded attempt; and, over each run's last valid
attempt (latest `attempted_at`, then highest `log_id`), the runs where the row's membership
flips, the latest succeeded one and the latest succeeded added/changed one. Everything else
before the horizon goes, attempts without a row id too. Inactive syncs keep everything.

Census (`census_run_starts`, `keep_run_start`): a run has no start of its own but the time
its first batch was sent, so every attempt sent at that time is kept, with its row run whole:
pruning never moves a run's start."""

from __future__ import annotations

import datetime as dt
from collections import defaultdict


def parse_time(value) -> dt.datetime | None:
    if value is None or isinstance(value, dt.datetime):
        return value
    return dt.datetime.fromisoformat(str(value))


def census_run_starts(attempts: list[dict]) -> dict:
    """(sync_id, sync_run_id) -> the time its first batch was sent (Census has no runs table)."""
    starts: dict = {}
    for attempt in attempts:
        sent = parse_time(attempt["batch_started_at"])
        key = (attempt["sync_id"], attempt["sync_run_id"])
        if sent is not None and (starts.get(key) is None or sent < starts[key]):
            starts[key] = sent
    return starts


def expected_doomed(attempts: list[dict], run_starts: dict, horizon: dt.datetime,
                    inactive: set[int], keep_run_start: bool = False) -> set[str]:
    """log_ids to delete. `attempts`: dicts with log_id, sync_id, sync_run_id, row_id,
    op_type, status, batch_started_at, batch_ended_at; `run_starts`: (sync_id, sync_run_id)
    -> start time; `keep_run_start`: keep what was sent at the run's start (Census)."""
    doomed: set[str] = set()
    row_runs: dict[tuple, dict[tuple, list[dict]]] = defaultdict(lambda: defaultdict(list))
    for attempt in attempts:
        if attempt["sync_id"] in inactive:
            continue
        start = parse_time(run_starts[(attempt["sync_id"], attempt["sync_run_id"])])
        batch_started = parse_time(attempt["batch_started_at"])
        batch_ended = parse_time(attempt["batch_ended_at"])
        item = dict(attempt, attempted_at=batch_started or start,
                    success_time=batch_ended or batch_started or start,
                    holds_run_start=keep_run_start and batch_started == start)
        if attempt["row_id"] is None:
            if start < horizon and not item["holds_run_start"]:
                doomed.add(attempt["log_id"])
            continue
        row = (attempt["sync_id"], attempt["row_id"])
        row_runs[row][(start, attempt["sync_run_id"])].append(item)

    for by_run in row_runs.values():
        runs = sorted(by_run)
        keep = {runs[-1]}
        keep |= {run for run in runs if any(a["holds_run_start"] for a in by_run[run])}
        succeeded = [(run, a) for run in runs for a in by_run[run] if a["status"] == "succeeded"]
        old_successes = [run for run, _ in succeeded if run[0] < horizon]
        if old_successes:
            keep.add(max(old_successes))
        keep |= {run for run, a in succeeded if a["op_type"] in ("added", "removed")}
        for key in ("success_time", "attempted_at"):
            if succeeded:
                best = max(a[key] for _, a in succeeded)
                keep |= {run for run, a in succeeded if a[key] == best}
        representatives = []
        for run in runs:
            valid = [a for a in by_run[run] if a["status"] != "invalid"]
            if valid:
                last = max(valid, key=lambda a: (a["attempted_at"], a["log_id"]))
                representatives.append((run, last))
        succeeded_reps = [(run, a) for run, a in representatives if a["status"] == "succeeded"]
        previous = "absent"
        for run, rep in succeeded_reps:
            state = "absent" if rep["op_type"] == "removed" else "present"
            if state != previous:
                keep.add(run)
            previous = state
        for reps in (succeeded_reps,
                     [(r, a) for r, a in succeeded_reps if a["op_type"] in ("added", "changed")]):
            if reps:
                best = max(a["attempted_at"] for _, a in reps)
                keep |= {run for run, a in reps if a["attempted_at"] == best}
        for run in runs:
            if run[0] < horizon and run not in keep:
                doomed |= {a["log_id"] for a in by_run[run]}
    return doomed
