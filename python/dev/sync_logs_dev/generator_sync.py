"""One sync's life: a population of source rows evolving over runs, and what each run sends.

A `SyncSimulator` keeps numpy state per source row (member of the model, present in the
destination, version of its payload, failed last time) and turns a `RunPlan` (budget of raw
records, outcome, injected features) into a `RunOutput`: per-record codes in file order plus
the batch files they belong to. No record text is built here; see generator_payload.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from sync_logs_dev.generator_catalog import Archetype
from sync_logs_dev.generator_payload import PayloadField, RecordShape, Rows, hash64

OPERATIONS = ("upsert", "update", "create", "append", "delete", "mirror")
OP = {name: i for i, name in enumerate(OPERATIONS)}

STATUSES = ("succeeded", "rejected", "NULL", "DUPLICATE", None)
S_OK, S_REJ, S_NULL, S_DUP, S_ABORT = range(5)
STATUS_KEYS = ("succeeded", "rejected", "NULL", "DUPLICATE", "aborted")  # manifest spelling

BATCH_TYPES = (
    "records_invalid",
    "records_created",
    "records_updated",
    "records_deleted",
    "records_appended",
    "records_rejected",
)
BT_INVALID, BT_CREATED, BT_UPDATED, BT_DELETED, BT_APPENDED, BT_REJECTED = range(6)

US = 1_000_000  # microseconds per second


@dataclass
class RunPlan:
    """What the planner decided about a run before any record exists."""

    sync_index: int
    index: int  # position of the run within its sync, 0 = first run
    run_id: int
    started_at: float  # epoch seconds, millisecond precision
    interval_s: float  # the sync's schedule interval
    outcome: str  # succeeded | failed | cancelled | running | failed_presend | nothing
    budget: int  # raw records to write for this run, exactly
    writer: str  # v1 (camelCase, old names) | v2 (aliases) | v3 (spec) | v4 (extra columns)
    fields: tuple[PayloadField, ...] = ()
    schema_change: list[dict] = field(default_factory=list)
    null_ids: bool = False
    duplicates: bool = False
    redeliver: bool = False
    burst: bool = False
    error: str | None = None
    timestamp_style: str = "zulu"  # how metadata.json spells its timestamps
    offset_minutes: int = 0  # zone offset for the "offset" style
    # incident scenario (generate_lake(incidents=True) only; the defaults change nothing)
    reject_share: float = 0.0  # share of the run's records the destination rejects
    slow_factor: float = 1.0  # batches take this many times longer (a throttled destination)
    all_new: bool = False  # every record is a row new to the model (an audience spike)
    extra_error: str | None = None  # five rows rejected with this template (e.g. "auth")


@dataclass
class FileSpec:
    """One parquet file of a run: rows [start, stop) of the run's arrays."""

    batch_type: str
    batch_number: int | None
    start: int
    stop: int
    redelivered: bool = False

    @property
    def name(self) -> str:
        if self.batch_number is None:
            return f"{self.batch_type}.parquet"
        return f"{self.batch_type}.{self.batch_number}.parquet"


@dataclass
class RunOutput:
    """All records of one run, in file order, and the files that hold them."""

    rows: Rows
    op: np.ndarray  # uint8 into OPERATIONS
    status: np.ndarray  # uint8 into STATUSES
    template: np.ndarray  # int16 message template code, -1 for none
    started_us: np.ndarray  # int64 batch_started_at
    ended_us: np.ndarray  # int64 batch_ended_at
    ended_valid: np.ndarray  # bool, False where the batch never finished
    files: list[FileSpec]
    finished_at: float | None
    run_status: str | None
    redelivered: int

    def __len__(self) -> int:
        return len(self.op)


def _uniform(rng: np.random.Generator, lo: float, hi: float) -> float:
    return float(rng.uniform(lo, hi))


class SyncSimulator:
    """The evolving population of one sync and the records its runs write."""

    def __init__(
        self,
        archetype: Archetype,
        shape: RecordShape,
        capacity: int,
        batch_size: int,
        rng: np.random.Generator,
    ):
        self.a = archetype
        self.shape = shape
        self.rng = rng
        self.batch_size = max(1, batch_size)
        cap = capacity + 1
        self.member = np.zeros(cap, dtype=bool)
        self.ever = np.zeros(cap, dtype=bool)
        self.pending = np.zeros(cap, dtype=bool)
        self.version = np.zeros(cap, dtype=np.int32)
        self.changed_at = np.zeros(cap, dtype=np.int64)
        self.next_fresh = 0
        # rows that already exist in the destination before the sync ever ran
        pre = hash64(np.arange(cap), shape.salt ^ 0xABC) % np.uint64(1000)
        pre_rate = {"update": 960, "delete": 930, "create": 20}.get(archetype.behavior, 0)
        self.in_dest = pre < np.uint64(pre_rate)
        self.reject_rate = _uniform(rng, 0.002, 0.02)
        self.templates = shape.template_codes()

    # --- composition ---------------------------------------------------------------------------

    def _fresh(self, count: int) -> np.ndarray:
        rows = np.arange(self.next_fresh, self.next_fresh + count, dtype=np.int64)
        self.next_fresh += count
        if self.next_fresh > len(self.member):
            raise RuntimeError("population capacity exceeded")  # sized from the sync's budget
        return rows

    def _op_code(self, delete: np.ndarray) -> np.ndarray:
        b = self.a.behavior
        if b == "mirror":
            base = OP["mirror"] if self.a.mirror_operation else OP["upsert"]
            return np.where(delete, OP["mirror"] if self.a.mirror_operation else OP["delete"], base)
        return np.full(len(delete), OP[b], dtype=np.uint8)

    def _batch_type(self, rows: np.ndarray, delete: np.ndarray) -> np.ndarray:
        b = self.a.behavior
        if b == "append":
            return np.full(len(rows), BT_APPENDED, dtype=np.uint8)
        if b == "delete":
            return np.full(len(rows), BT_DELETED, dtype=np.uint8)
        if b == "create":
            return np.full(len(rows), BT_CREATED, dtype=np.uint8)
        if b == "update":
            return np.full(len(rows), BT_UPDATED, dtype=np.uint8)
        bt = np.where(self.in_dest[rows], BT_UPDATED, BT_CREATED).astype(np.uint8)
        return np.where(delete, BT_DELETED, bt).astype(np.uint8)

    def _compose(self, plan: RunPlan, n: int, reserve_redeliver: int):
        """Pick the rows of this run. Returns (rows, version-bumped mask, delete mask, invalid)."""
        rng, b, start = self.rng, self.a.behavior, plan.started_at
        extras_null = extras_dup = 0
        if plan.null_ids and n >= 3:
            extras_null = max(1, int(n * _uniform(rng, 0.001, 0.008)))
        dup_sizes: list[int] = []
        if plan.duplicates and n - extras_null >= 6:
            groups = max(1, int(n * _uniform(rng, 0.0005, 0.004)))
            dup_sizes = [int(s) for s in rng.choice([2, 2, 2, 3], size=groups)]
            while dup_sizes and sum(dup_sizes) > (n - extras_null) // 3:
                dup_sizes.pop()
            extras_dup = sum(dup_sizes)
        m = n - extras_null - extras_dup - reserve_redeliver

        members = np.flatnonzero(self.member & ~self.pending)
        avail = rng.permutation(members)
        take = 0  # avail[:take] is used
        pend = np.flatnonzero(self.pending)
        if b == "append" or plan.index == 0:
            retries = pend[:0]
        else:
            retries = rng.permutation(pend)[: min(len(pend), int(np.ceil(0.4 * m)))]
        r = m - len(retries)
        n_leave = n_change = n_resend = 0
        if plan.index > 0 and b in ("mirror", "upsert", "update"):
            f_leave = _uniform(rng, 0.05, 0.3) if b == "mirror" else 0.0
            f_change = {"mirror": (0.1, 0.4), "upsert": (0.3, 0.7), "update": (0.5, 0.9)}[b]
            f_resend = 0.0 if rng.random() < 0.5 else _uniform(rng, 0.01, 0.05)
            n_leave = min(int(r * f_leave), len(avail))
            n_change = min(int(r * _uniform(rng, *f_change)), len(avail) - n_leave)
            n_resend = min(int(r * f_resend), len(avail) - n_leave - n_change)
        if plan.all_new:
            n_leave = n_change = n_resend = 0
        leavers = avail[take : take + n_leave]
        take += n_leave
        changers = avail[take : take + n_change]
        take += n_change
        resends = avail[take : take + n_resend]
        take += n_resend
        n_join = r - n_leave - n_change - n_resend
        rejoin = np.zeros(0, dtype=np.int64)
        if b in ("mirror", "upsert", "update") and plan.index > 0:
            former = np.flatnonzero(self.ever & ~self.member & ~self.pending)
            n_rejoin = min(len(former), int(n_join * _uniform(rng, 0.0, 0.25)))
            if plan.all_new:
                n_rejoin = 0
            rejoin = rng.choice(former, size=n_rejoin, replace=False) if n_rejoin else rejoin
        fresh = self._fresh(n_join - len(rejoin))
        # rows that leave the model without a delete (non-mirror syncs just stop sending them)
        if plan.index > 0 and b in ("upsert", "update"):
            n_silent = int((len(avail) - take) * _uniform(rng, 0.0, 0.05))
            self.member[avail[take : take + n_silent]] = False
            take += n_silent

        # invalid records: null identifiers (rows that never make it) and duplicated keys
        null_rows = self._fresh(extras_null)
        dup_rows = np.zeros(0, dtype=np.int64)
        dup_variant = np.zeros(0, dtype=np.int8)
        if dup_sizes:
            pool = avail[take:]
            need = len(dup_sizes)
            base = pool[:need] if len(pool) >= need else np.concatenate(
                [pool, self._fresh(need - len(pool))]
            )
            dup_rows = np.repeat(base, dup_sizes)
            dup_variant = np.concatenate([np.arange(1, s + 1) for s in dup_sizes]).astype(np.int8)

        # payload versions: changers and rejoiners changed; some retries changed again
        interval = max(plan.interval_s, 60.0)
        bump = np.concatenate([changers, rejoin])
        if len(retries):
            bump = np.concatenate([bump, retries[rng.random(len(retries)) < 0.3]])
        self.version[bump] += 1
        self.changed_at[bump] = int(start) - rng.integers(30, int(interval) + 31, len(bump))
        if b == "append":
            self.changed_at[fresh] = int(start) - rng.integers(0, int(interval) + 1, len(fresh))
        else:
            self.changed_at[fresh] = int(start) - rng.integers(60, 30 * 86400, len(fresh))
        self.changed_at[null_rows] = int(start) - rng.integers(60, 30 * 86400, len(null_rows))

        # mirror deletes: leavers, and retries of failed deletes for rows no longer in the model
        sent = np.concatenate([fresh, rejoin, changers, resends, retries, leavers])
        delete = np.zeros(len(sent), dtype=bool)
        if b == "mirror":
            delete[len(sent) - len(leavers) :] = True
            delete |= ~self.member[sent] & np.isin(sent, retries)
        elif b == "delete":
            delete[:] = True
        joined = np.concatenate([fresh, rejoin])
        return sent, delete, joined, leavers, null_rows, dup_rows, dup_variant

    # --- statuses ------------------------------------------------------------------------------

    def _statuses(self, rows: np.ndarray, delete: np.ndarray):
        rng, t, dest = self.rng, self.templates, self.shape.destination
        n = len(rows)
        status = np.full(n, S_OK, dtype=np.uint8)
        code = np.full(n, -1, dtype=np.int16)
        in_dest = self.in_dest[rows]
        b = self.a.behavior
        if b == "update":
            miss = ~in_dest & (rng.random(n) < 0.97)
            status[miss], code[miss] = S_REJ, t.not_found
        if b == "create" and t.duplicate >= 0:
            dup = in_dest & (rng.random(n) < 0.95)
            status[dup], code[dup] = S_REJ, t.duplicate
        gone = delete & ~in_dest & (rng.random(n) < (0.9 if b == "delete" else 0.5))
        status[gone], code[gone] = S_REJ, t.not_found
        if dest.validates_email and t.invalid_email >= 0:
            bad = ~delete & self.shape.is_bad_email(rows) & (status == S_OK)
            status[bad], code[bad] = S_REJ, t.invalid_email
        generic = (status == S_OK) & (rng.random(n) < self.reject_rate)
        k = int(generic.sum())
        if k:
            status[generic] = S_REJ
            code[generic] = rng.choice(t.generic, size=k, p=t.generic_p)
        return status, code

    # --- a run ---------------------------------------------------------------------------------

    def run(self, plan: RunPlan) -> RunOutput:
        rng = self.rng
        n = plan.budget
        start_us = int(round(plan.started_at * 1000)) * 1000
        if n == 0:
            finished = None
            if plan.outcome != "running":
                finished = plan.started_at + round(_uniform(rng, 4.0, 90.0), 3)
            return self._empty(plan, finished)

        # budget for a re-delivered batch, taken before composing so the total stays exact
        reserve = 0  # v1 writers name files without batch numbers: no second file of a type
        if plan.redeliver and plan.writer != "v1" and plan.outcome in ("succeeded", "running"):
            reserve = min(self.batch_size, n // 5)
        sent, delete, joined, leavers, null_rows, dup_rows, dup_variant = self._compose(
            plan, n, reserve
        )
        op = self._op_code(delete)
        bt = self._batch_type(sent, delete)
        status, code = self._statuses(sent, delete)
        if plan.reject_share or plan.extra_error is not None:
            self._scenario_rejections(plan, status, code)

        # arrange the sendable records by batch type, invalid ones first
        order = np.argsort(bt, kind="stable")
        sent, delete, op, bt, status, code = (
            x[order] for x in (sent, delete, op, bt, status, code)
        )
        n_inv = len(null_rows) + len(dup_rows)
        inv_rows = np.concatenate([null_rows, dup_rows])
        inv_delete = np.zeros(n_inv, dtype=bool)
        all_rows = np.concatenate([inv_rows, sent])
        variant = np.concatenate([np.zeros(len(null_rows), np.int8), dup_variant,
                                  np.zeros(len(sent), np.int8)])
        is_null = np.zeros(len(all_rows), dtype=bool)
        is_null[: len(null_rows)] = True
        op = np.concatenate([self._op_code(inv_delete), op])
        status = np.concatenate([
            np.full(len(null_rows), S_NULL, np.uint8), np.full(len(dup_rows), S_DUP, np.uint8),
            status,
        ])
        code = np.concatenate([np.full(n_inv, -1, np.int16), code])
        bt = np.concatenate([np.full(n_inv, BT_INVALID, np.uint8), bt])

        # cut into batches of row positions; invalid records form one batch
        batches: list[dict] = []
        for kind in np.unique(bt):
            idx = np.flatnonzero(bt == kind)
            step = len(idx) if kind == BT_INVALID else self.batch_size
            for s in range(0, len(idx), step):
                batches.append({"kind": int(kind), "idx": idx[s : s + step], "copy": False})
        sendable = [i for i, bb in enumerate(batches) if bb["kind"] != BT_INVALID]

        if plan.burst and sendable:  # the destination throttled one whole batch
            idx = batches[sendable[int(rng.integers(len(sendable)))]]["idx"]
            status[idx], code[idx] = S_REJ, self.templates.rate_limit

        crash = None  # batches from this one on were planned but never attempted
        if plan.outcome in ("failed", "cancelled") and sendable:
            crash = sendable[int(rng.integers(1, len(sendable))) if len(sendable) > 1 else 0]
            if plan.error == self.shape.destination.auth_error:
                # credentials expired: this batch was attempted and came back 401, the rest
                # of the run was abandoned
                idx = batches[crash]["idx"]
                status[idx], code[idx] = S_REJ, self.templates.auth
                crash += 1
            if crash < len(batches):
                later = np.concatenate([bb["idx"] for bb in batches[crash:]])
                status[later], code[later] = S_ABORT, -1
            else:
                crash = None

        # a re-delivered batch: the engine retried the largest batch, so its first rows were
        # sent again right after it (the reserve was taken from the budget above)
        redelivered = 0
        if reserve and sendable:
            j = max(sendable, key=lambda i: len(batches[i]["idx"]))
            if len(batches[j]["idx"]) < reserve:
                raise RuntimeError("re-delivery reserve exceeds the largest batch")
            copy = {"kind": batches[j]["kind"], "idx": batches[j]["idx"][:reserve], "copy": True}
            batches.insert(j + 1, copy)
            redelivered = reserve
            if crash is not None and crash > j:
                crash += 1

        # timestamps, batch by batch
        t = start_us + int(rng.uniform(1.0, 6.0) * US)
        rps = self.shape.destination.records_per_second
        crash_at = None
        for i, bb in enumerate(batches):
            size = len(bb["idx"])
            if crash is not None and i >= crash:
                crash_at = t if crash_at is None else crash_at
                bb["started"], bb["ended"] = crash_at, None
                continue
            if bb["kind"] == BT_INVALID:
                dur = int(rng.uniform(0.05, 0.8) * US)
            elif (status[bb["idx"]] == S_REJ).all():
                dur = int(rng.uniform(0.2, 2.0) * US)
            else:
                dur = int((size / rps * rng.uniform(0.8, 1.6) + rng.uniform(0.2, 1.5)) * US)
            dur = int(dur * plan.slow_factor) if plan.slow_factor != 1.0 else dur
            if bb["copy"]:
                t += int(rng.uniform(5.0, 30.0) * US)  # retry back-off
            bb["started"], bb["ended"] = t, t + dur
            t += dur + int(rng.uniform(0.05, 2.0) * US)

        # run-level outcome
        if plan.outcome == "running":
            finished, run_status = None, None
        elif crash is not None:
            finished = (crash_at + int(rng.uniform(1.0, 60.0) * US)) / US
            run_status = "failed" if plan.outcome == "failed" else "cancelled"
        else:
            finished = (t + int(rng.uniform(0.5, 4.0) * US)) / US
            run_status = plan.outcome if plan.outcome in ("failed", "cancelled") else "succeeded"

        self._apply(plan, sent, delete, status[n_inv:], joined, leavers)
        rows = Rows(
            all_rows.astype(np.int64),
            self.version[all_rows],
            variant,
            self.changed_at[all_rows],
            is_null,
        )
        out = self._files(plan, rows, op, status, code, bt, batches)
        out.finished_at = None if finished is None else round(finished, 3)
        out.run_status = run_status
        out.redelivered = redelivered
        return out

    def _scenario_rejections(self, plan: RunPlan, status: np.ndarray, code: np.ndarray) -> None:
        """The incident scenario's rejections, without a random draw: the first accepted
        records get the destination's rate-limit error (`reject_share` of the run) and the
        last five accepted ones the template named `extra_error` (e.g. "auth")."""
        if plan.reject_share:
            ok = np.flatnonzero(status == S_OK)[: int(len(status) * plan.reject_share)]
            status[ok], code[ok] = S_REJ, self.templates.rate_limit
        if plan.extra_error is not None:
            ok = np.flatnonzero(status == S_OK)[-5:]
            status[ok], code[ok] = S_REJ, getattr(self.templates, plan.extra_error)

    def _apply(self, plan, sent, delete, status, joined, leavers):
        """Carry the run's effects into the population."""
        ok = status == S_OK
        failed = ~ok
        self.in_dest[sent[ok & ~delete]] = True
        self.in_dest[sent[ok & delete]] = False
        self.pending[sent[ok]] = False
        if self.a.behavior != "append":
            self.pending[sent[failed]] = True
        self.member[joined] = True
        self.ever[joined] = True
        self.member[leavers] = False
        if self.a.behavior not in ("mirror", "delete"):
            self.pending &= self.member  # rows that left an upsert model are not retried

    def _files(self, plan, rows, op, status, code, bt, batches) -> RunOutput:
        """Lay the records out in files. v1 writers put each batch type in one unnumbered
        file and rejections in `records_rejected.parquet`; later writers one file per batch."""
        order = np.concatenate([bb["idx"] for bb in batches])
        sizes = [len(bb["idx"]) for bb in batches]
        started = np.repeat(np.array([bb["started"] for bb in batches], dtype=np.int64), sizes)
        ended_valid = np.repeat(np.array([bb["ended"] is not None for bb in batches]), sizes)
        ended = np.repeat(
            np.array([bb["ended"] or 0 for bb in batches], dtype=np.int64), sizes
        )
        files = []
        if plan.writer == "v1":
            ftype = bt[order]
            ftype = np.where((status[order] == S_REJ) & (ftype != BT_INVALID), BT_REJECTED, ftype)
            regroup = np.argsort(ftype, kind="stable")
            order, started, ended, ended_valid = (
                x[regroup] for x in (order, started, ended, ended_valid)
            )
            ftype = ftype[regroup]
            for kind in np.unique(ftype):
                idx = np.flatnonzero(ftype == kind)
                files.append(FileSpec(BATCH_TYPES[kind], None, int(idx[0]), int(idx[-1]) + 1))
        else:
            pos = 0
            for number, bb in enumerate(batches):
                size = len(bb["idx"])
                files.append(FileSpec(BATCH_TYPES[bb["kind"]], number, pos, pos + size,
                                      bb["copy"]))
                pos += size
        return RunOutput(
            rows=rows.take(order),
            op=op[order],
            status=status[order],
            template=code[order],
            started_us=started,
            ended_us=ended,
            ended_valid=ended_valid,
            files=files,
            finished_at=None,
            run_status=None,
            redelivered=0,
        )

    def _empty(self, plan: RunPlan, finished: float | None) -> RunOutput:
        z = np.zeros(0, dtype=np.int64)
        status = {"failed_presend": "failed", "running": None}.get(plan.outcome, "succeeded")
        return RunOutput(
            rows=Rows(z, z.astype(np.int32), z.astype(np.int8), z, z.astype(bool)),
            op=z.astype(np.uint8), status=z.astype(np.uint8), template=z.astype(np.int16),
            started_us=z, ended_us=z, ended_valid=z.astype(bool), files=[],
            finished_at=None if finished is None else round(finished, 3),
            run_status=status, redelivered=0,
        )
