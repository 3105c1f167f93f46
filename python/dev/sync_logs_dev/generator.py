"""Demo lake generator: realistic raw run outputs in the layout of the input contract.

`generate_lake(out_dir, syncs, runs_per_sync, records, seed, ...)` plans a handful of orgs and
their syncs (behaviours, sources, destinations, schedules), simulates every run of every sync
over an evolving population of source rows, and writes

    <out_dir>/sync_tracking_datasets/<org_id>/<sync_id>/<sync_run_id>/{metadata.json, *.parquet}
    <out_dir>/metadata/<org_id>/{source_objects,destinations,destination_objects}.parquet

`records` is exact: the valid record files hold exactly that many rows (re-delivered copies,
invalid and aborted records included). The output is a pure function of the arguments.
With `bad_inputs=True` the same valid lake is written (byte for byte) and every case of the
contract's "Bad input" list is added on top; see generator_bad. The manifest (a JSON file
outside the lake) describes every run, every injected bad item and where each realism feature
landed, so tests can reconcile what a loader reports against what was written.
"""

from __future__ import annotations

import json
import shutil
import sys
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
from tqdm import tqdm

from sync_logs_dev.generator_catalog import (
    ARCHETYPES,
    CANCEL_ERRORS,
    DEFAULT_START,
    DESTINATIONS,
    ENTITY_DRIFT,
    MIDRUN_ERRORS,
    PRESEND_ERRORS,
    SOURCE_OBJECT_TYPES,
    WAREHOUSES,
    Archetype,
)
from sync_logs_dev.generator_files import (
    TIMESTAMP_STYLES,
    canonical_timestamp,
    metadata_document,
    record_tables,
    round_for_style,
    write_facts,
    write_json,
    write_parquet,
)
from sync_logs_dev.generator_payload import PayloadField, RecordShape
from sync_logs_dev.generator_sync import (
    BATCH_TYPES,
    OPERATIONS,
    STATUS_KEYS,
    RunPlan,
    SyncSimulator,
)

MANIFEST_VERSION = 1
_BATCH_SIZES = (100, 250, 500, 1_000, 2_500, 5_000, 10_000, 25_000, 50_000, 100_000)
_OFFSETS_MIN = (120, -420, 330, -180, 60)
_NEW_SYNC_INTERVAL_S = 600.0


def parse_start(text: str) -> float:
    """Epoch seconds of an ISO-8601 timestamp; without a zone it is UTC."""
    dt = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=timezone.utc)
    return dt.timestamp()


# --- the plan -----------------------------------------------------------------------------------


@dataclass
class SourceObject:
    id: int
    kind: str  # key of SOURCE_OBJECT_TYPES
    name: str
    model_id: int
    created_at: float

    def fact_row(self) -> dict:
        """The row in source_objects.parquet: only the id that matches the type is set."""
        ref = {"model": "model_id", "entity": "business_object_id",
               "segment": "filter_segment_id", "cohort": "cohort_id"}.get(self.kind)
        row = {"id": self.id, "type": SOURCE_OBJECT_TYPES[self.kind], "name": self.name,
               "model_id": None, "business_object_id": None, "filter_segment_id": None,
               "cohort_id": None}
        if ref:
            row[ref] = self.model_id
        return row


@dataclass
class Named:
    id: int
    type: str
    name: str
    created_at: float


@dataclass
class SyncPlan:
    index: int
    org_id: int
    workspace_id: int
    sync_id: int
    archetype: Archetype
    warehouse_type: str
    warehouse_id: int
    source_object: SourceObject
    destination: Named
    destination_object: Named
    interval_s: float
    first_run_at: float
    new: bool  # created after the fact tables were last refreshed
    budget: int = 0
    batch_size: int = 1_000
    drift: list[dict] = field(default_factory=list)
    runs: list[RunPlan] = field(default_factory=list)


class _Ids:
    """Increasing ids with random gaps, like a shared sequence other tenants also draw from."""

    def __init__(self, rng: np.random.Generator, start: int, max_gap: int):
        self.rng, self.value, self.max_gap = rng, start, max_gap

    def next(self) -> int:
        self.value += int(self.rng.integers(1, self.max_gap + 1))
        return self.value


@dataclass
class LakePlan:
    start: float
    orgs: list[dict]
    syncs: list[SyncPlan]
    facts_refreshed_at: float
    extra_objects: dict[int, list]  # org -> objects of deleted syncs, only in the fact tables
    roles: dict[int, str] = field(default_factory=dict)  # sync index -> incident scenario role


def plan_lake(syncs: int, runs_per_sync: int, records: int, seed: int, orgs: int,
              start: float, incidents: bool = False) -> LakePlan:
    rng = np.random.default_rng([seed, 0])
    K = runs_per_sync

    org_ids = sorted(int(x) for x in rng.choice(np.arange(10, 1000), size=orgs, replace=False))
    warehouse_ids = _Ids(rng, 3, 20)
    org_info = []
    for org_id in org_ids:
        ws = sorted(int(x) for x in rng.choice(np.arange(1, 500), size=2, replace=False))
        org_info.append({
            "org_id": org_id, "workspace_ids": ws,
            "warehouse_type": str(rng.choice(WAREHOUSES)), "warehouse_id": warehouse_ids.next(),
        })

    arch_idx = list(range(min(syncs, len(ARCHETYPES))))
    if syncs > len(ARCHETYPES):
        arch_idx += [int(x) for x in rng.integers(0, len(ARCHETYPES), syncs - len(ARCHETYPES))]
    sync_ids = sorted(int(x) for x in rng.choice(np.arange(1_000, 100_000), size=syncs,
                                                 replace=False))
    n_new = 0 if syncs < 3 else (1 if syncs < 10 else 2)
    old_first = np.sort(rng.uniform(0, 36 * 3600, syncs - n_new))
    intervals = [float(rng.choice(ARCHETYPES[a].interval_hours)) * 3600 for a in arch_idx]
    old_end = max(
        (start + old_first[i] + (K - 1) * intervals[i] for i in range(syncs - n_new)),
        default=start,
    )
    max_old_first = start + (old_first[-1] if len(old_first) else 0.0)
    new_first = []
    for j in range(n_new):
        t = old_end - (K - 1) * _NEW_SYNC_INTERVAL_S - rng.uniform(0, 1800)
        new_first.append(max(t, max_old_first + 3600) + j * 120)
    if incidents:  # every sync runs until the end, but the one that stops early
        old_first, new_first = _scenario_schedule(syncs, K, n_new, intervals, start, old_end)
    facts_refreshed_at = (min(new_first) - 600) if new_first else old_end - 3600

    source_ids, model_ids = _Ids(rng, 500, 30), _Ids(rng, 600, 25)
    dest_ids, dest_obj_ids = _Ids(rng, 800, 15), _Ids(rng, 2_000, 40)
    sources: dict[tuple, SourceObject] = {}
    dests: dict[tuple, Named] = {}
    dest_objs: dict[tuple, Named] = {}
    plans: list[SyncPlan] = []
    for i in range(syncs):
        a = ARCHETYPES[arch_idx[i]]
        org = org_info[i % orgs]
        new = i >= syncs - n_new
        first = new_first[i - (syncs - n_new)] if new else start + float(old_first[i])
        first = float(int(first / 60) * 60)  # schedules start on the minute
        created = first - (300 if new else 86400)
        skey = (org["org_id"], a.source_kind, a.model_name) if not new else ("new", i)
        if skey not in sources:
            sources[skey] = SourceObject(source_ids.next(), a.source_kind, a.model_name,
                                         model_ids.next(), created)
        dkey = (org["org_id"], a.destination) if not (new and i == syncs - n_new) else ("new", i)
        if dkey not in dests:
            d = DESTINATIONS[a.destination]
            label = d.label if dkey[0] != "new" else f"{d.label} (sandbox)"
            dests[dkey] = Named(dest_ids.next(), d.connection_type, label, created)
        conn = dests[dkey]
        okey = (conn.id, a.dest_object) if not new else ("new", i)
        if okey not in dest_objs:
            dest_objs[okey] = Named(dest_obj_ids.next(),
                                    DESTINATIONS[a.destination].object_type(a.dest_object),
                                    a.dest_object, created)
        plans.append(SyncPlan(
            index=i, org_id=org["org_id"],
            workspace_id=org["workspace_ids"][i % 2 if a.behavior != "append" else 0],
            sync_id=sync_ids[i], archetype=a,
            warehouse_type=org["warehouse_type"], warehouse_id=org["warehouse_id"],
            source_object=sources[skey], destination=conn, destination_object=dest_objs[okey],
            interval_s=_NEW_SYNC_INTERVAL_S if new else intervals[i], first_run_at=first,
            new=new,
        ))

    # objects of syncs deleted long ago: in the fact tables, in no run
    extra: dict[int, list] = {}
    for org in org_info:
        extra[org["org_id"]] = [
            SourceObject(source_ids.next(), "table", "analytics.marts.legacy_customers",
                         model_ids.next(), start - 90 * 86400),
            Named(dest_obj_ids.next(), "Salesforce::ObjectTypes::Opportunity", "Opportunity",
                  start - 90 * 86400),
        ]

    roles = _scenario_roles(plans, K) if incidents else {}
    for sp in plans:
        if roles.get(sp.index) == "stale":  # it stopped running early
            sp.first_run_at -= SCENARIO_STALE_INTERVALS * sp.interval_s
    _plan_runs(rng, plans, K, records, roles)
    return LakePlan(start, org_info, plans, facts_refreshed_at, extra, roles)


def _plan_runs(rng: np.random.Generator, plans: list[SyncPlan], K: int, records: int,
               roles: dict[int, str]) -> None:
    # schedules: run k at first + k * interval, a little late; each run's metadata.json uses
    # one timestamp style (all styles used, at random), which fixes the instant it denotes
    keys = [(sp.index, k) for sp in plans for k in range(K)]
    total = len(keys)
    perm = rng.permutation(total)
    style_of = {keys[p]: TIMESTAMP_STYLES[j % len(TIMESTAMP_STYLES)] for j, p in enumerate(perm)}
    offsets = rng.choice(_OFFSETS_MIN, size=total)
    starts: dict[tuple[int, int], float] = {}
    for sp in plans:
        for k in range(K):
            jitter = rng.uniform(0, min(90.0, 0.05 * sp.interval_s))
            t = sp.first_run_at + k * sp.interval_s + jitter
            starts[(sp.index, k)] = round_for_style(t, style_of[(sp.index, k)])
    # run ids increase with start time across the whole lake (one shared sequence)
    order = sorted(keys, key=lambda key: (starts[key], key))
    run_ids = int(rng.integers(100_000, 900_000)) + np.cumsum(rng.integers(1, 40, total))
    rank = {key: (j, int(run_ids[j])) for j, key in enumerate(order)}

    # outcomes
    outcome: dict[tuple[int, int], str] = {}
    for sp in plans:
        for k in range(K):
            u = rng.random()
            o = "succeeded"
            if k > 0:
                o = ("failed_presend" if u < 0.02 else "failed" if u < 0.06 else
                     "cancelled" if u < 0.08 else "nothing" if u < 0.12 else "succeeded")
            outcome[(sp.index, k)] = o
    old = [sp for sp in plans if not sp.new]
    if K >= 2 and len(plans) >= 2 and old:
        sp = old[int(rng.integers(len(old)))]
        outcome[(sp.index, K - 1)] = "running"
    candidates = [key for key, o in sorted(outcome.items()) if key[1] > 0 and o == "succeeded"]
    for need in ("failed", "cancelled", "failed_presend", "nothing"):
        if need not in outcome.values() and len(candidates) > 1:
            key = candidates.pop(int(rng.integers(len(candidates))))
            outcome[key] = need

    _scenario_outcomes(outcome, plans, K, roles)

    # the first failed run lost its destination credentials (later ones may too)
    first_failed = min((key for key, o in outcome.items() if o == "failed"), default=None)

    # budgets: exact, via multinomial draws
    weights = rng.lognormal(0.0, 0.6, len(plans))
    weights[[sp.new for sp in plans]] *= 0.25
    sync_budget = rng.multinomial(records, weights / weights.sum())
    for sp in plans:
        sp.budget = int(sync_budget[sp.index])
        w = np.array([
            max(1.0, 0.25 * K) if k == 0 else
            0.0 if outcome[(sp.index, k)] in ("failed_presend", "nothing") else
            float(rng.gamma(2.0, 0.5))
            for k in range(K)
        ]) if sp.index not in roles else _scenario_weights(roles[sp.index], K)
        budgets = rng.multinomial(sp.budget, w / w.sum())
        avg = sp.budget / K
        sp.batch_size = next((b for b in _BATCH_SIZES if b >= avg / 3), _BATCH_SIZES[-1])

        # payload schema drift: one guaranteed change per sync, sometimes two
        if K >= 2:
            kinds = ["add", "remove", "retype"]
            chosen = [kinds[sp.index % 3]]
            if rng.random() < 0.4:
                chosen.append(kinds[(sp.index + 1 + int(rng.integers(2))) % 3])
            for kind in chosen:
                sp.drift.append({"run_index": int(rng.integers(1, K)), "kind": kind})
            sp.drift.sort(key=lambda d: d["run_index"])
        shape_fields = _fields_by_run(sp, K)

        for k in range(K):
            o = outcome[(sp.index, k)]
            j, run_id = rank[(sp.index, k)]
            writer = ("v1" if j < 0.15 * total else "v2" if j < 0.30 * total else
                      "v3" if j < 0.80 * total else "v4")
            style = style_of[(sp.index, k)]
            started = starts[(sp.index, k)]
            sp.runs.append(RunPlan(
                sync_index=sp.index, index=k, run_id=run_id, started_at=started,
                interval_s=sp.interval_s, outcome=o, budget=int(budgets[k]), writer=writer,
                fields=shape_fields[k][0], schema_change=shape_fields[k][1],
                error=_run_error(rng, sp, o, auth=(sp.index, k) == first_failed),
                timestamp_style=style,
                offset_minutes=int(offsets[j]),
            ))
        if sp.index in roles:
            _scenario_runs(sp, roles[sp.index], K)

    # injected features: random, and at least once wherever an eligible run exists
    runs = [r for sp in plans for r in sp.runs]
    features = {
        "null_ids": (0.25, lambda r: r.budget >= 3),
        "duplicates": (0.2, lambda r: r.budget >= 20),
        "redeliver": (0.12, lambda r: r.budget >= 10 and r.writer != "v1"
                      and r.outcome in ("succeeded", "running")),
        "burst": (0.05, lambda r: r.budget >= 1 and r.index > 0
                  and r.outcome not in ("failed_presend", "nothing")),
    }
    for name, (p, eligible) in features.items():
        ok = [r for r in runs if eligible(r)]
        for r in ok:
            setattr(r, name, bool(rng.random() < p))
        if ok and not any(getattr(r, name) for r in ok):
            best = max(ok, key=lambda r: (r.budget, -r.run_id))
            setattr(best, name, True)
    for r in runs:  # a scenario sync tells its one story: no random rate-limit burst
        if r.sync_index in roles:
            r.burst = False


# --- the incident scenario (generate_lake(incidents=True), used by the demo) --------------------
#
# Each old sync but one gets a role; its runs all succeed but for what the role plans at run
# SCENARIO_RUN (late enough for the monitoring baselines: 3 previous runs at least), with
# steady budgets so that one run stands out. Nothing here draws a random number: the other
# syncs, and every lake generated without the scenario, are unchanged.

SCENARIO_ROLES = ("volume", "run_failed", "failed_records", "new_error_class", "slow_run",
                  "stale")
SCENARIO_RUN = 7  # the run (0-based, within its sync) where the role's incident opens
# the volume role's spike comes earlier (4 runs before it: the minimum baseline is 3), so that
# the trailing median of its audience catches up with the new level, and the incident
# resolves, before the sync's last run
SCENARIO_VOLUME_RUN = 4
SCENARIO_STALE_INTERVALS = 6  # the stale sync's last run is this many intervals early


def _scenario_roles(plans: list[SyncPlan], K: int) -> dict[int, str]:
    """sync index -> role: `volume` to the first mirror or upsert sync (an audience it can
    grow), `stale` to the shortest schedule, `failed_records` to a sync that rarely rejects
    (mirror, append, upsert: create, update and delete syncs reject rows missing from, or
    already in, the destination on every run), the other roles to the next old syncs."""
    old = [sp for sp in plans if not sp.new]
    if len(old) < len(SCENARIO_ROLES) or K < SCENARIO_RUN + 3:
        raise ValueError(f"the incident scenario needs {len(SCENARIO_ROLES)} old syncs and "
                         f"{SCENARIO_RUN + 3} runs per sync at least")
    volume = next((sp for sp in old if sp.archetype.behavior in ("mirror", "upsert")), old[0])
    rest = [sp for sp in old if sp is not volume]
    stale = min(rest, key=lambda sp: (sp.interval_s, sp.index))
    rest = [sp for sp in rest if sp is not stale]
    rank = {"mirror": 0, "append": 1, "upsert": 2}
    rejects = min(rest, key=lambda sp: (rank.get(sp.archetype.behavior, 3), sp.index))
    rest = [sp for sp in rest if sp is not rejects]
    roles = {volume.index: "volume", stale.index: "stale", rejects.index: "failed_records"}
    for sp, role in zip(rest, ("run_failed", "new_error_class", "slow_run"), strict=False):
        roles[sp.index] = role
    return roles


def _scenario_schedule(syncs: int, K: int, n_new: int, intervals: list[float], start: float,
                       old_end: float) -> tuple[list[float], list[float]]:
    """First-run offsets (old syncs, from `start`) and first-run times (new syncs) so that
    every schedule ends at `old_end`: at a reference time shortly after, only a sync that
    stopped is stale (default lakes spread their syncs' last runs over days)."""
    old_first = [old_end - start - (K - 1) * intervals[i] for i in range(syncs - n_new)]
    new_first = [old_end - (K - 1) * _NEW_SYNC_INTERVAL_S + j * 120 for j in range(n_new)]
    return old_first, new_first


def _scenario_outcomes(outcome: dict, plans: list[SyncPlan], K: int,
                       roles: dict[int, str]) -> None:
    for sp in plans:
        role = roles.get(sp.index)
        if role is None:
            continue
        for k in range(1, K):
            if outcome[(sp.index, k)] != "running":
                outcome[(sp.index, k)] = "succeeded"
        if role == "run_failed":
            outcome[(sp.index, SCENARIO_RUN)] = "failed"


def _scenario_weights(role: str, K: int) -> np.ndarray:
    """Run budgets: a larger first load, then steady; the volume role's spike run 8 times
    the others (all of it rows new to the model)."""
    w = np.ones(K)
    w[0] = max(1.0, 0.25 * K)
    if role == "volume":
        w[SCENARIO_VOLUME_RUN] = 8.0
    return w


def _scenario_runs(sp: SyncPlan, role: str, K: int) -> None:
    """The role's run (the stale sync's schedule was moved earlier in plan_lake)."""
    run = sp.runs[SCENARIO_VOLUME_RUN if role == "volume" else SCENARIO_RUN]
    if role == "run_failed":
        run.error = str(MIDRUN_ERRORS[1]).format(
            destination=DESTINATIONS[sp.archetype.destination].name)
    elif role == "failed_records":
        run.reject_share = 0.4  # a burst of rate-limit rejections: 40 % of the run
    elif role == "new_error_class":
        run.extra_error = "auth"  # five records rejected with the destination's 401
    elif role == "slow_run":
        run.slow_factor = 10.0
    elif role == "volume":
        run.all_new = True


def _fields_by_run(sp: SyncPlan, K: int) -> list[tuple[tuple[PayloadField, ...], list[dict]]]:
    """Per run: the payload fields, and the drift events that first apply in that run."""
    a = sp.archetype
    shape = RecordShape(sp.sync_id, a.entity, a.primary_key, DESTINATIONS[a.destination])
    drift = ENTITY_DRIFT[a.entity]
    fields = [PayloadField(f) for f in shape.base_fields]
    out = []
    for k in range(K):
        changes = []
        for d in sp.drift:
            if d["run_index"] != k:
                continue
            if d["kind"] == "add" and all(f.field.name != drift.add.name for f in fields):
                fields.append(PayloadField(drift.add))
                changes.append({"kind": "added", "field": drift.add.name,
                                "json_type": drift.add.json_type})
            elif d["kind"] == "remove" and any(f.field.name == drift.remove for f in fields):
                fields = [f for f in fields if f.field.name != drift.remove]
                changes.append({"kind": "removed", "field": drift.remove})
            elif d["kind"] == "retype":
                for i, f in enumerate(fields):
                    if f.field.name == drift.retype and not f.retyped:
                        fields[i] = PayloadField(f.field, retyped=True)
                        changes.append({"kind": "retyped", "field": drift.retype,
                                        "from": f.field.json_type, "to": "string"})
        out.append((tuple(fields), changes))
    return out


def _run_error(rng: np.random.Generator, sp: SyncPlan, outcome: str,
               auth: bool = False) -> str | None:
    dest = DESTINATIONS[sp.archetype.destination]
    if outcome == "failed_presend":
        table = "".join(c if c.isalnum() else "_" for c in sp.source_object.name).upper()
        return str(rng.choice(PRESEND_ERRORS)).format(table=table)
    if outcome == "failed":
        if rng.random() < 0.5 or auth:
            return dest.auth_error
        return str(rng.choice(MIDRUN_ERRORS)).format(destination=dest.name)
    if outcome == "cancelled":
        return str(rng.choice(CANCEL_ERRORS))
    return None


# --- writing ------------------------------------------------------------------------------------


@dataclass
class WrittenRun:
    """A run as written: what the bad-input stage and the manifest need to know about it."""

    sync: SyncPlan
    plan: RunPlan
    shape: RecordShape
    directory: Path
    entry: dict  # the manifest entry


@dataclass
class GenerateSummary:
    out_dir: Path
    orgs: int
    syncs: int
    runs: int
    files: int
    records: int
    redelivered: int
    bytes: int
    bad_items: int
    seconds: float
    manifest: dict

    def to_dict(self) -> dict:
        return {k: (str(v) if isinstance(v, Path) else v)
                for k, v in self.__dict__.items() if k != "manifest"}


def _run_metadata(sp: SyncPlan, plan: RunPlan, run_status, finished) -> dict:
    a = sp.archetype
    return {
        "organization_id": sp.org_id,
        "workspace_id": sp.workspace_id,
        "sync_id": sp.sync_id,
        "sync_run_id": plan.run_id,
        "sync_run_started_at": plan.started_at,
        "sync_run_finished_at": finished,
        "sync_run_status": run_status,
        "sync_run_error": plan.error,
        "behavior": a.behavior,
        "primary_key": a.primary_key,
        "model_name": sp.source_object.name,
        "model_id": sp.source_object.model_id,
        "split_group": a.split_group,
        "source": {"type": sp.warehouse_type, "id": sp.warehouse_id,
                   "object_id": sp.source_object.id, "object_name": sp.source_object.name},
        "destination": {"type": sp.destination.type, "id": sp.destination.id,
                        "object_id": sp.destination_object.id,
                        "object_type": sp.destination_object.type,
                        "object_name": sp.destination_object.name},
        "record_payload_schema": {f.field.name: f.json_type for f in plan.fields},
    }


def _counts(codes: np.ndarray, names: tuple) -> dict:
    counts = np.bincount(codes, minlength=len(names)) if len(codes) else np.zeros(len(names), int)
    return {str(name): int(c) for name, c in zip(names, counts, strict=True) if c}


def _prepare_out_dir(out: Path, overwrite: bool) -> None:
    out.mkdir(parents=True, exist_ok=True)
    for name in ("sync_tracking_datasets", "metadata"):
        target = out / name
        if target.exists():
            if not overwrite:
                raise FileExistsError(f"{target} exists; pass overwrite=True (--overwrite)")
            shutil.rmtree(target)


def generate_lake(
    out_dir: str | Path,
    syncs: int = 20,
    runs_per_sync: int = 30,
    records: int = 1_000_000,
    seed: int = 7,
    bad_inputs: bool = False,
    orgs: int | None = None,
    start: str | float = DEFAULT_START,
    manifest_path: str | Path | None = None,
    progress: bool = False,
    overwrite: bool = False,
    incidents: bool = False,
) -> GenerateSummary:
    """Write a demo lake to `out_dir` and return what was written (see module docstring)."""
    t0 = time.perf_counter()
    if syncs < 1 or runs_per_sync < 1 or records < 0:
        raise ValueError("need syncs >= 1, runs_per_sync >= 1, records >= 0")
    orgs = min(3, syncs) if orgs is None else orgs
    if not 1 <= orgs <= syncs:
        raise ValueError("need 1 <= orgs <= syncs")
    out = Path(out_dir).resolve()
    if manifest_path is not None:
        manifest_file = Path(manifest_path).resolve()
        if manifest_file.is_relative_to(out):
            raise ValueError("the manifest must not be written inside the lake root")
    start_epoch = float(start) if isinstance(start, int | float) else parse_start(start)
    _prepare_out_dir(out, overwrite)

    plan = plan_lake(syncs, runs_per_sync, records, seed, orgs, start_epoch, incidents)
    datasets = out / "sync_tracking_datasets"
    written: list[WrittenRun] = []
    n_files = n_bytes = n_records = n_redelivered = 0
    bar = tqdm(total=records, unit="rec", unit_scale=True, desc="generate", file=sys.stderr,
               disable=not progress, mininterval=0.5)
    for sp in plan.syncs:
        a = sp.archetype
        shape = RecordShape(sp.sync_id, a.entity, a.primary_key, DESTINATIONS[a.destination])
        sim = SyncSimulator(a, shape, sp.budget, sp.batch_size,
                            np.random.default_rng([seed, 1, sp.index]))
        for rp in sp.runs:
            result = sim.run(rp)
            run_dir = datasets / str(sp.org_id) / str(sp.sync_id) / str(rp.run_id)
            run_dir.mkdir(parents=True, exist_ok=True)
            files = []
            for spec, table in record_tables(result, shape, rp.fields, rp.writer, sp.sync_id,
                                             rp.run_id):
                size = write_parquet(table, run_dir / spec.name)
                n_bytes += size
                n_files += 1
                files.append({
                    "path": (run_dir / spec.name).relative_to(out).as_posix(),
                    "batch_type": spec.batch_type, "batch_number": spec.batch_number,
                    "rows": spec.stop - spec.start, "redelivered": spec.redelivered,
                })
                bar.update(spec.stop - spec.start)
            style = rp.timestamp_style
            finished = None if result.finished_at is None else round_for_style(
                result.finished_at, style, up=True)
            meta = _run_metadata(sp, rp, result.run_status, finished)
            doc = metadata_document(meta, rp.writer, style, rp.offset_minutes)
            n_bytes += write_json(doc, run_dir / "metadata.json")
            n = len(result)
            n_records += n
            n_redelivered += result.redelivered
            status = _counts(result.status, STATUS_KEYS)
            entry = {
                "org_id": sp.org_id, "sync_id": sp.sync_id, "sync_run_id": rp.run_id,
                "path": run_dir.relative_to(out).as_posix(),
                "run_index": rp.index,
                "started_at": canonical_timestamp(rp.started_at),
                "finished_at": canonical_timestamp(finished),
                "status": result.run_status, "error": rp.error,
                "behavior": a.behavior, "writer": rp.writer,
                "timestamp_style": style,
                "records": n, "redelivered": result.redelivered,
                "status_counts": status,
                "operation_counts": _counts(result.op, OPERATIONS),
                "null_identifiers": status.get("NULL", 0),
                "duplicate_identifiers": status.get("DUPLICATE", 0),
                "aborted": status.get("aborted", 0),
                "rate_limit_burst": bool(rp.burst and n),
                "payload_schema": meta["record_payload_schema"],
                "schema_change": rp.schema_change,
                "files": files,
                "late": False,
            }
            written.append(WrittenRun(sp, rp, shape, run_dir, entry))
    bar.close()

    facts = _write_facts(out, plan)
    n_bytes += sum(f.pop("bytes") for f in facts)

    bad_items: list[dict] = []
    if bad_inputs:
        from sync_logs_dev.generator_bad import inject_bad_inputs

        bad_items, extra_bytes = inject_bad_inputs(out, written, seed)
        n_bytes += extra_bytes

    manifest = {
        "manifest_version": MANIFEST_VERSION,
        "generator": {
            "syncs": syncs, "runs_per_sync": runs_per_sync, "records": records, "seed": seed,
            "orgs": orgs, "bad_inputs": bad_inputs,
            "start": canonical_timestamp(start_epoch),
        },
        "lake_root": str(out),
        "summary": {
            "orgs": orgs, "syncs": syncs, "runs": len(written), "record_files": n_files,
            "records": n_records, "redelivered": n_redelivered,
            "bad_items": len(bad_items),
        },
        "orgs": facts,
        "syncs": [_sync_entry(sp) for sp in plan.syncs],
        "runs": [w.entry for w in written],
        "bad_items": bad_items,
        "features": _features(written, bad_items),
    }
    if incidents:
        manifest["generator"]["incidents"] = True
        manifest["scenario"] = {
            "run_index": SCENARIO_RUN, "volume_run_index": SCENARIO_VOLUME_RUN,
            "roles": {str(sp.sync_id): plan.roles[sp.index] for sp in plan.syncs
                      if sp.index in plan.roles},
        }
    if manifest_path is not None:
        manifest_file.parent.mkdir(parents=True, exist_ok=True)
        manifest_file.write_text(json.dumps(manifest, indent=1, ensure_ascii=False) + "\n",
                                 encoding="utf-8")
    return GenerateSummary(
        out_dir=out, orgs=orgs, syncs=syncs, runs=len(written), files=n_files,
        records=n_records, redelivered=n_redelivered, bytes=n_bytes, bad_items=len(bad_items),
        seconds=round(time.perf_counter() - t0, 3), manifest=manifest,
    )


def _sync_entry(sp: SyncPlan) -> dict:
    a = sp.archetype
    return {
        "org_id": sp.org_id, "workspace_id": sp.workspace_id, "sync_id": sp.sync_id,
        "behavior": a.behavior, "mirror_operation": a.mirror_operation,
        "primary_key": a.primary_key, "model_name": sp.source_object.name,
        "source_object_id": sp.source_object.id,
        "source_object_type": SOURCE_OBJECT_TYPES[sp.source_object.kind],
        "destination_id": sp.destination.id, "destination_type": sp.destination.type,
        "destination_object_id": sp.destination_object.id,
        "destination_object_type": sp.destination_object.type,
        "split_group": a.split_group, "interval_seconds": sp.interval_s,
        "batch_size": sp.batch_size, "records": sp.budget, "runs": len(sp.runs),
        "created_after_facts_refresh": sp.new, "schema_drift": sp.drift,
    }


def _write_facts(out: Path, plan: LakePlan) -> list[dict]:
    """Fact tables per org, as refreshed at `facts_refreshed_at`: newer objects are missing."""
    result = []
    cutoff = plan.facts_refreshed_at
    for org in plan.orgs:
        org_id = org["org_id"]
        mine = [sp for sp in plan.syncs if sp.org_id == org_id]
        srcs = {sp.source_object.id: sp.source_object for sp in mine}
        dsts = {sp.destination.id: sp.destination for sp in mine}
        dobjs = {sp.destination_object.id: sp.destination_object for sp in mine}
        legacy_src, legacy_obj = plan.extra_objects[org_id]
        srcs[legacy_src.id] = legacy_src
        dobjs[legacy_obj.id] = legacy_obj
        present = {
            "source_objects": [o for o in srcs.values() if o.created_at <= cutoff],
            "destinations": [o for o in dsts.values() if o.created_at <= cutoff],
            "destination_objects": [o for o in dobjs.values() if o.created_at <= cutoff],
        }
        missing = {
            "source_objects": sorted(o.id for o in srcs.values() if o.created_at > cutoff),
            "destinations": sorted(o.id for o in dsts.values() if o.created_at > cutoff),
            "destination_objects": sorted(o.id for o in dobjs.values() if o.created_at > cutoff),
        }
        written = write_facts(
            out / "metadata" / str(org_id),
            [o.fact_row() for o in present["source_objects"]],
            [{"id": o.id, "type": o.type, "name": o.name} for o in present["destinations"]],
            [{"id": o.id, "type": o.type, "name": o.name} for o in present["destination_objects"]],
        )
        result.append({
            "org_id": org_id, "workspace_ids": org["workspace_ids"],
            "facts_refreshed_at": canonical_timestamp(cutoff),
            "facts": {k: sorted(o.id for o in v) for k, v in present.items()},
            "missing_from_facts": missing,
            "files": [p.relative_to(out).as_posix() for p, _ in written],
            "bytes": sum(size for _, size in written),
        })
    return result


def _features(written: list[WrittenRun], bad_items: list[dict]) -> dict:
    """Where each realism feature of the valid lake landed: run ids per feature."""
    def ids(pred) -> list[int]:
        return [w.plan.run_id for w in written if pred(w.entry)]

    return {
        "null_identifiers": ids(lambda e: e["null_identifiers"] > 0),
        "duplicate_identifiers": ids(lambda e: e["duplicate_identifiers"] > 0),
        "redelivered_batches": ids(lambda e: e["redelivered"] > 0),
        "aborted_records": ids(lambda e: e["aborted"] > 0),
        "rejected_records": ids(lambda e: e["status_counts"].get("rejected", 0) > 0),
        "rate_limit_bursts": ids(lambda e: e["rate_limit_burst"]),
        "zero_record_files": ids(lambda e: not e["files"]),
        "failed_runs": ids(lambda e: e["status"] == "failed"),
        "cancelled_runs": ids(lambda e: e["status"] == "cancelled"),
        "unfinished_runs": ids(lambda e: e["finished_at"] is None),
        "schema_drift": ids(lambda e: bool(e["schema_change"])),
        "old_style_file_names": ids(lambda e: any(f["batch_number"] is None for f in e["files"])),
        "writer_v1_camel_case": ids(lambda e: e["writer"] == "v1"),
        "writer_v2_aliases": ids(lambda e: e["writer"] == "v2"),
        "writer_v4_extra_columns": ids(lambda e: e["writer"] == "v4"),
        "timestamp_styles": sorted({w.entry["timestamp_style"] for w in written}),
        "late_runs": [b["sync_run_id"] for b in bad_items if b["kind"] == "late_run"],
        "batch_types": sorted({f["batch_type"] for w in written for f in w.entry["files"]}
                              & set(BATCH_TYPES)),
    }
