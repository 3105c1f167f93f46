"""The demo's incident scenario (generate_lake(incidents=True)), read back from the files.

The demo lake must hold each kind of monitoring incident (README "Incidents, anomalies and
the error taxonomy"). The expectations are the scenario's story, written by hand: at the
scenario run (the 8th of its sync) one sync fails and then recovers, one gets a burst of
rejections, one a new error class, one a slow run; at its 5th run one has a spike of planned
operations made of rows new to the model (its audience jumps); and one sync stopped running
six intervals before the others, so that only it is stale at the demo's reference time. No
Spark. Default lakes are covered by test_generator.py, unchanged.
"""

from __future__ import annotations

import csv
import json
import re
import statistics
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from sync_logs_dev.demo import reference_time
from sync_logs_dev.generator import generate_lake

# the demo's lake (sync_logs_dev.demo.prepare_demo_lake), written out here
DEMO_ARGS = dict(syncs=8, runs_per_sync=12, records=200_000, seed=7)
SCENARIO_RUN = 7
VOLUME_RUN = 4  # the spike comes earlier, so that the audience incident resolves
ROLES = {"volume", "run_failed", "failed_records", "new_error_class", "slow_run", "stale"}
SEED = Path(__file__).resolve().parents[2] / "seeds" / "sync_logs_error_categories.csv"


def parse_ts(value) -> datetime:
    dt = datetime.fromisoformat(str(value))
    return dt if dt.tzinfo else dt.replace(tzinfo=UTC)


def metadata(doc: dict, key: str):
    """A metadata.json value under its spec, camelCase or alias spelling."""
    camel = re.sub(r"_([a-z])", lambda m: m.group(1).upper(), key)
    aliases = {"sync_run_finished_at": "completed_at"}
    for name in (key, camel, aliases.get(key, "")):
        if name in doc:
            return doc[name]
    return None


@pytest.fixture(scope="module")
def lake(tmp_path_factory):
    base = tmp_path_factory.mktemp("incidents")
    summary = generate_lake(base / "lake", manifest_path=base / "manifest.json",
                            incidents=True, **DEMO_ARGS)
    manifest = json.loads((base / "manifest.json").read_text())
    runs: dict[int, list[dict]] = {}
    for entry in manifest["runs"]:
        folder = base / "lake" / entry["path"]
        doc = json.loads((folder / "metadata.json").read_text())
        rows = [r for p in sorted(folder.glob("*.parquet"))
                for r in pq.read_table(p, columns=["identifier", "status",
                                                   "status_message"]).to_pylist()]
        runs.setdefault(entry["sync_id"], []).append({
            "index": entry["run_index"],
            "status": metadata(doc, "sync_run_status"),
            "error": metadata(doc, "sync_run_error"),
            "started": parse_ts(metadata(doc, "sync_run_started_at")),
            "finished": (None if metadata(doc, "sync_run_finished_at") is None
                         else parse_ts(metadata(doc, "sync_run_finished_at"))),
            "rows": rows,
        })
    for sync_runs in runs.values():
        sync_runs.sort(key=lambda r: r["index"])
    by_role = {role: int(sync_id) for sync_id, role in manifest["scenario"]["roles"].items()}
    return summary, manifest, runs, by_role


def rejected_rate(run: dict) -> float:
    return sum(r["status"] == "rejected" for r in run["rows"]) / len(run["rows"])


def test_each_role_has_its_own_sync_and_the_record_count_stays_exact(lake):
    summary, manifest, runs, by_role = lake
    assert set(by_role) == ROLES
    assert len(set(by_role.values())) == len(ROLES)
    assert manifest["generator"]["incidents"] is True
    assert summary.records == DEMO_ARGS["records"]
    assert sum(len(r["rows"]) for sync_runs in runs.values() for r in sync_runs) == 200_000


def test_run_failed_then_recovered(lake):
    runs = lake[2][lake[3]["run_failed"]]
    failed = runs[SCENARIO_RUN]
    assert failed["status"] == "failed"
    assert failed["error"].startswith("Lost connection to ")
    assert any(r["status"] is None for r in failed["rows"])  # the rest of the run aborted
    assert [r["status"] for r in runs[1:SCENARIO_RUN]] == ["succeeded"] * (SCENARIO_RUN - 1)
    assert runs[SCENARIO_RUN + 1]["status"] == "succeeded"


def test_failed_records_burst_on_a_sync_that_rarely_rejects(lake):
    runs = lake[2][lake[3]["failed_records"]]
    assert rejected_rate(runs[SCENARIO_RUN]) >= 0.40  # over the critical 25 %
    burst = [r["status_message"] for r in runs[SCENARIO_RUN]["rows"] if r["status"] == "rejected"]
    assert sum("rate limit" in m.lower() or "too many" in m.lower() or "429" in m
               or "throttl" in m.lower() for m in burst) >= 0.3 * len(runs[SCENARIO_RUN]["rows"])
    others = [r for r in runs if r["index"] != SCENARIO_RUN]
    assert all(rejected_rate(r) < 0.05 for r in others)  # under the warning 5 %: it resolves
    assert all(r["status"] == "succeeded" for r in others if r["status"] is not None)


def test_new_error_class_is_authentication_once(lake):
    runs = lake[2][lake[3]["new_error_class"]]
    with SEED.open(newline="") as f:
        auth = [re.compile(row["pattern"], re.IGNORECASE) for row in csv.DictReader(f)
                if row["error_class"] == "authentication"]

    def auth_messages(run):
        return [r["status_message"] for r in run["rows"]
                if r["status_message"] and any(p.search(r["status_message"]) for p in auth)]

    assert len(auth_messages(runs[SCENARIO_RUN])) == 5
    assert all(not auth_messages(r) for r in runs if r["index"] != SCENARIO_RUN)
    assert all(r["status"] == "succeeded" for r in runs[1:-1])


def test_slow_run_is_far_over_the_trailing_durations(lake):
    runs = lake[2][lake[3]["slow_run"]]

    def duration(run):
        return (run["finished"] - run["started"]).total_seconds()

    before = [duration(r) for r in runs[:SCENARIO_RUN]]
    # the p95 of the previous runs is at most their maximum; the factor is 1.5
    assert duration(runs[SCENARIO_RUN]) > 1.5 * max(before)
    assert duration(runs[SCENARIO_RUN + 1]) < 1.5 * max(before)


def test_planned_spike_of_rows_new_to_the_model(lake):
    runs = lake[2][lake[3]["volume"]]
    sizes = [len(r["rows"]) for r in runs]
    steady = statistics.median(sizes[1:VOLUME_RUN] + sizes[VOLUME_RUN + 1:])
    assert sizes[VOLUME_RUN] >= 6 * steady
    others = sizes[1:VOLUME_RUN] + sizes[VOLUME_RUN + 1:]
    assert all(abs(s - steady) <= 0.1 * steady for s in others)
    seen = {r["identifier"] for run in runs[:VOLUME_RUN] for r in run["rows"]}
    spike = [r["identifier"] for r in runs[VOLUME_RUN]["rows"] if r["status"] == "succeeded"]
    # all but re-delivered and duplicated copies are rows the sync never sent before
    assert sum(i not in seen for i in spike) >= 0.95 * len(spike)
    assert all(r["status"] == "succeeded" for r in runs[1:-1])


def test_only_the_stopped_sync_is_stale_at_the_reference_time(lake):
    _, manifest, runs, by_role = lake
    reference = parse_ts(reference_time(manifest))
    interval = {s["sync_id"]: s["interval_seconds"] for s in manifest["syncs"]}
    last_start = {sync_id: max(r["started"] for r in sync_runs)
                  for sync_id, sync_runs in runs.items()}
    assert reference == max(last_start.values()).replace(second=0, microsecond=0) + timedelta(
        minutes=11)
    late = {sync_id for sync_id, t in last_start.items()
            if reference - t > timedelta(seconds=3 * interval[sync_id])}  # stale factor 3
    assert late == {by_role["stale"]}
    stale = by_role["stale"]
    assert reference - last_start[stale] > timedelta(seconds=6 * interval[stale])


def test_scenario_needs_enough_syncs_and_runs(tmp_path):
    with pytest.raises(ValueError, match="incident scenario"):
        generate_lake(tmp_path / "a", syncs=8, runs_per_sync=9, records=900, incidents=True)
    with pytest.raises(ValueError, match="incident scenario"):
        generate_lake(tmp_path / "b", syncs=6, runs_per_sync=12, records=900, incidents=True)


def test_demo_lake_is_reused_with_its_reference_time(tmp_path):
    from sync_logs_dev.demo import prepare_demo_lake

    lake = tmp_path / "demo_lake"
    info = prepare_demo_lake(lake, records=5_000, seed=7)
    assert info["generator"] == dict(syncs=8, runs_per_sync=12, records=5_000, seed=7,
                                     incidents=True)
    assert json.loads((tmp_path / "demo_lake.demo.json").read_text()) == info
    # the same schedule as the demo's 200,000 records: the last run starts 2026-10-13 11:37:22
    assert info["reference_time"] == "2026-10-13 11:48:00"
    marker = lake / "sync_tracking_datasets" / "marker"
    marker.write_text("kept")
    assert prepare_demo_lake(lake, records=5_000, seed=7) == info  # reused, not regenerated
    assert marker.exists()
    prepare_demo_lake(lake, records=6_000, seed=7)  # other arguments: generated again
    assert not marker.exists()

    mine = tmp_path / "my_lake"  # a lake of the user's (no info file): used as it is
    generate_lake(mine, syncs=2, runs_per_sync=2, records=50, seed=1)
    assert prepare_demo_lake(mine)["reference_time"] is None
    assert not (tmp_path / "my_lake.demo.json").exists()
