"""One more run for a lake that `generate_lake` wrote: a realistic increment (e.g. a daily run).

    append_run(lake, 100_000, syncs=20, runs_per_sync=30, lake_records=1_000_000, seed=7)

The lake's plan is a pure function of `generate_lake`'s arguments, so this re-plans it with the
same arguments, picks the busiest sync (the most records; a `mirror` sync when there is one, so
that rows are also removed), replays that sync's simulator through all its runs (numpy state
only, nothing written; the replay is checked against the files on disk: same file names and row
counts per run, else ValueError), then simulates and writes one more run of exactly `records`
raw records as the sync's newest run. Its records come from the same population of source rows
as the earlier runs: rows that join (`added`), rows whose payload changed and rows re-sent
(`changed`), rows that left a mirror sync (`removed`), retries of earlier failures, plus null
and duplicated identifiers and one re-delivered batch, as in any run. The run succeeds, uses the
spec's spelling (writer v3), starts after every run of the lake and takes the next run id. Its
batch files hold `records / 10` records each (rounded up to one of the generator's batch sizes),
so the same increment is the same files whatever the size of the lake's history.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow.parquet as pq

from sync_logs_dev.generator import (
    _BATCH_SIZES,
    DEFAULT_START,
    SyncPlan,
    _run_metadata,
    parse_start,
    plan_lake,
)
from sync_logs_dev.generator_catalog import DESTINATIONS
from sync_logs_dev.generator_files import (
    metadata_document,
    record_tables,
    round_for_style,
    write_json,
    write_parquet,
)
from sync_logs_dev.generator_payload import RecordShape
from sync_logs_dev.generator_sync import OPERATIONS, STATUS_KEYS, RunPlan, SyncSimulator


def busiest_sync(syncs: list[SyncPlan]) -> SyncPlan:
    """The sync with the most records, among mirror syncs when there are any."""
    mirror = [sp for sp in syncs if sp.archetype.behavior == "mirror"]
    return max(mirror or syncs, key=lambda sp: (sp.budget, -sp.index))


def _files_on_disk(run_dir: Path) -> dict[str, int]:
    return {p.name: pq.ParquetFile(p).metadata.num_rows for p in sorted(run_dir.glob("*.parquet"))}


def append_run(
    lake: str | Path,
    records: int,
    *,
    syncs: int = 20,
    runs_per_sync: int = 30,
    lake_records: int = 1_000_000,
    seed: int = 7,
    orgs: int | None = None,
    start: str | float = DEFAULT_START,
) -> dict:
    """Write one new run of exactly `records` records to the busiest sync of the lake that
    `generate_lake(lake, syncs, runs_per_sync, lake_records, seed, orgs=orgs, start=start)`
    wrote; return a description of the run (ids, path, files, status and operation counts)."""
    if records < 1:
        raise ValueError("need records >= 1")
    lake = Path(lake).resolve()
    orgs = min(3, syncs) if orgs is None else orgs
    start_epoch = float(start) if isinstance(start, int | float) else parse_start(start)
    plan = plan_lake(syncs, runs_per_sync, lake_records, seed, orgs, start_epoch)
    sp = busiest_sync(plan.syncs)
    a = sp.archetype
    shape = RecordShape(sp.sync_id, a.entity, a.primary_key, DESTINATIONS[a.destination])
    # Capacity for the new run's fresh rows too; it changes no draw of the replay.
    sim = SyncSimulator(a, shape, sp.budget + records, sp.batch_size,
                        np.random.default_rng([seed, 1, sp.index]))
    sync_dir = lake / "sync_tracking_datasets" / str(sp.org_id) / str(sp.sync_id)
    for rp in sp.runs:
        replayed = sim.run(rp)
        expected = {f.name: f.stop - f.start for f in replayed.files}
        if _files_on_disk(sync_dir / str(rp.run_id)) != expected:
            raise ValueError(
                f"{sync_dir / str(rp.run_id)} does not hold what generate_lake writes with these "
                "arguments: pass the syncs, runs_per_sync, lake_records and seed it was made with"
            )

    rng = np.random.default_rng([seed, 2, sp.index])
    all_runs = [r for s in plan.syncs for r in s.runs]
    last = sp.runs[-1]
    started = max(last.started_at + sp.interval_s, max(r.started_at for r in all_runs) + 60.0)
    started = round_for_style(started + float(rng.uniform(0, 90)), "zulu")
    new = RunPlan(
        sync_index=sp.index,
        index=len(sp.runs),
        run_id=max(r.run_id for r in all_runs) + int(rng.integers(1, 40)),
        started_at=started,
        interval_s=sp.interval_s,
        outcome="succeeded",
        budget=records,
        writer="v3",
        fields=last.fields,
        null_ids=True,
        duplicates=True,
        redeliver=True,
        timestamp_style="zulu",
    )
    # The increment's batches hold records/10 (rounded up to a generator batch size), whatever
    # the sync's own batch size: the same increment has the same files over any history.
    sim.batch_size = next((b for b in _BATCH_SIZES if b >= records / 10), _BATCH_SIZES[-1])
    result = sim.run(new)
    run_dir = sync_dir / str(new.run_id)
    if run_dir.exists():
        raise FileExistsError(f"{run_dir} exists")
    run_dir.mkdir(parents=True)
    files = []
    for spec, table in record_tables(result, shape, new.fields, new.writer, sp.sync_id,
                                     new.run_id):
        write_parquet(table, run_dir / spec.name)
        files.append({"name": spec.name, "rows": spec.stop - spec.start})
    finished = None if result.finished_at is None else round_for_style(
        result.finished_at, "zulu", up=True)
    meta = _run_metadata(sp, new, result.run_status, finished)
    write_json(metadata_document(meta, new.writer, new.timestamp_style, 0),
               run_dir / "metadata.json")
    status = np.bincount(result.status, minlength=len(STATUS_KEYS))
    ops = np.bincount(result.op, minlength=len(OPERATIONS))
    return {
        "org_id": sp.org_id,
        "sync_id": sp.sync_id,
        "sync_run_id": new.run_id,
        "behavior": a.behavior,
        "path": run_dir.relative_to(lake).as_posix(),
        "records": len(result),
        "redelivered": result.redelivered,
        "earlier_runs": len(sp.runs),
        "earlier_records": sp.budget,
        "files": files,
        "status_counts": {k: int(c) for k, c in zip(STATUS_KEYS, status, strict=True) if c},
        "operation_counts": {k: int(c) for k, c in zip(OPERATIONS, ops, strict=True) if c},
    }
