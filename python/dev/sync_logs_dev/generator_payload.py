"""Vectorised text for record batches: identifiers, JSON payloads and destination error messages.

Every value is a pure function of (sync salt, row number, version, variant), computed with a
64-bit mixing hash over numpy arrays, so the same record always renders to the same bytes
whichever run or batch it lands in. Strings are assembled with pyarrow.compute
(`take` from precomputed pools, `binary_join_element_wise`); there is no per-record Python.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from sync_logs_dev.generator_catalog import (
    EMAIL_DOMAINS,
    ENTITY_FIELDS,
    FIRST_NAMES,
    LAST_NAMES,
    POOLS,
    Destination,
    Field,
)

_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MASK40 = np.uint64((1 << 40) - 1)
_ODD40 = np.uint64(0x9E3779B1 | 1)


def stable_salt(*parts: object) -> int:
    """A salt that is the same in every Python process (unlike hash())."""
    return zlib.crc32("\x1f".join(map(str, parts)).encode()) * 2654435761 % (1 << 63)


def hash64(keys: np.ndarray, salt: int) -> np.ndarray:
    """splitmix64 of `keys` (any integer array) under `salt`: uniform uint64 values."""
    with np.errstate(over="ignore"):
        x = keys.astype(np.uint64) + np.uint64(salt) * _GOLDEN
        x = (x ^ (x >> np.uint64(30))) * _M1
        x = (x ^ (x >> np.uint64(27))) * _M2
        return x ^ (x >> np.uint64(31))


def permute40(keys: np.ndarray, salt: int) -> np.ndarray:
    """A bijection on [0, 2**40): distinct rows get distinct, random-looking numbers."""
    with np.errstate(over="ignore"):
        x = (keys.astype(np.uint64) * _ODD40 + np.uint64(salt)) & _MASK40
        return (x ^ (x >> np.uint64(17))) & _MASK40  # xorshift is a bijection too


def _quoted_pool(values: Sequence) -> pa.Array:
    return pa.array([json.dumps(v, ensure_ascii=False, separators=(",", ":")) for v in values])


_FIRST = pa.array([json.dumps(d, ensure_ascii=False) for d, _ in FIRST_NAMES])
_LAST = pa.array([json.dumps(d, ensure_ascii=False) for d, _ in LAST_NAMES])
_FIRST_ASCII = pa.array([a for _, a in FIRST_NAMES])
_LAST_ASCII = pa.array([a for _, a in LAST_NAMES])
_DOMAINS = pa.array(EMAIL_DOMAINS)
# malformed emails: 0 is well formed; 1..3 are the shapes users really have in their warehouses
_AT = pa.array(["@", "@", " at ", "@@"])
_DOMAIN_BAD = pa.array([d.rsplit(".", 1)[0] for d in EMAIL_DOMAINS])  # missing TLD
_POOLS = {name: _quoted_pool(values) for name, values in POOLS.items()}
_BOOL = pa.array(["false", "true"])
_CENTS = pa.array([f"{c:02d}" for c in range(100)])
_BAD_EMAIL_RATE = 1 / 150


def _lazy(compute):
    """A memoised thunk: computed on first call, shared afterwards."""
    cache: list = []

    def get():
        if not cache:
            cache.append(compute())
        return cache[0]

    return get


def _num_text(values: np.ndarray) -> pa.Array:
    return pc.cast(pa.array(values, type=pa.int64()), pa.string())


@dataclass(frozen=True)
class PayloadField:
    """A field as it is in one run: its definition and whether drift retyped it to string."""

    field: Field
    retyped: bool = False

    @property
    def json_type(self) -> str:
        return "string" if self.retyped else self.field.json_type


@dataclass(frozen=True)
class Rows:
    """The inputs that decide a batch of records' text; all arrays have the same length."""

    row: np.ndarray  # int64 row number within the sync's population
    version: np.ndarray  # int32: bumped each time the source row changes
    variant: np.ndarray  # int8: 0, or 1.. for the copies of a duplicated identifier
    changed_at: np.ndarray  # int64 epoch seconds of the row's last change (or event time)
    is_null: np.ndarray  # bool: identifier is null in the source

    def __len__(self) -> int:
        return len(self.row)

    def take(self, index) -> Rows:
        return Rows(
            self.row[index],
            self.version[index],
            self.variant[index],
            self.changed_at[index],
            self.is_null[index],
        )


class RecordShape:
    """How one sync's records look: primary key format, fields and destination messages."""

    def __init__(self, sync_id: int, entity: str, primary_key: str, destination: Destination):
        self.salt = stable_salt("sync", sync_id)
        self.entity = entity
        self.primary_key = primary_key
        self.destination = destination
        self.id_offset = 1_000 + int(hash64(np.array([1]), self.salt)[0] % np.uint64(90_000))
        base = ENTITY_FIELDS[entity]
        if primary_key == "email":
            self.pk_field = next(f for f in base if f.name == "email")
            self.base_fields = base
        else:
            json_type = "number" if primary_key == "account_id" else "string"
            self.pk_field = Field(primary_key, "pk", json_type)
            self.base_fields = (self.pk_field, *base)
        self._templates = _TemplateTable(destination)
        self._pool_cache: dict[tuple[int, str], pa.Array] = {}

    # --- identifiers ---------------------------------------------------------------------------

    def is_bad_email(self, row: np.ndarray) -> np.ndarray:
        if self.entity != "person":
            return np.zeros(len(row), dtype=bool)
        h = hash64(row, self.salt ^ 0xE)
        return h < np.uint64(int(_BAD_EMAIL_RATE * 2.0**64))

    def raw_email(self, row: np.ndarray) -> pa.Array:
        first = pa.array(hash64(row, self.salt ^ 0xF1) % np.uint64(len(FIRST_NAMES)))
        last = pa.array(hash64(row, self.salt ^ 0xF2) % np.uint64(len(LAST_NAMES)))
        dom = pa.array(hash64(row, self.salt ^ 0xF3) % np.uint64(len(EMAIL_DOMAINS)))
        bad = self.is_bad_email(row)
        shape = np.where(bad, 1 + (hash64(row, self.salt ^ 0xF4) % np.uint64(3)), 0)
        domain = pc.if_else(pa.array(shape == 1), _DOMAIN_BAD.take(dom), _DOMAINS.take(dom))
        number = _num_text(row + self.id_offset)
        return pc.binary_join_element_wise(
            _FIRST_ASCII.take(first), ".", _LAST_ASCII.take(last), number,
            _AT.take(pa.array(shape)), domain, "",
        )

    def _pk_text(self, row: np.ndarray) -> pa.Array:
        """The primary key value as text (unquoted)."""
        if self.primary_key == "email":
            return self.raw_email(row)
        if self.primary_key == "account_id":
            return _num_text(row + self.id_offset)
        if self.primary_key == "event_id":
            return pc.binary_join_element_wise(
                "evt_", pc.utf8_lpad(_num_text(permute40(row, self.salt)), 13, "0"), ""
            )
        prefix = {"user_id": "usr_", "lead_id": "lead_"}.get(self.primary_key, "id_")
        return pc.binary_join_element_wise(
            prefix, pc.utf8_lpad(_num_text(row + self.id_offset), 7, "0"), ""
        )

    def identifiers(self, rows: Rows) -> pa.Array:
        text = self._pk_text(rows.row)
        if rows.is_null.any():
            text = pc.if_else(pa.array(rows.is_null), pa.scalar(None, pa.string()), text)
        return text

    def destination_record_ids(self, row: np.ndarray, present: np.ndarray) -> pa.Array:
        """The id the destination answered with (newer writers log it); null where absent."""
        text = pc.utf8_lpad(_num_text(permute40(row, self.salt ^ 0xD) % np.uint64(10**12)), 12, "0")
        text = pc.binary_join_element_wise("d", text, "")
        return pc.if_else(pa.array(present), text, pa.scalar(None, pa.string()))

    # --- payloads ------------------------------------------------------------------------------

    def _keyed_pool(self, pool: pa.Array, prefix: str) -> pa.Array:
        """`pool` with the field's key in front of every value (pools are small)."""
        key = (id(pool), prefix)
        if key not in self._pool_cache:
            self._pool_cache[key] = pa.array([prefix + v for v in pool.to_pylist()])
        return self._pool_cache[key]

    def _field_text(self, pf: PayloadField, rows: Rows, prefix: str, emails) -> pa.Array:
        """`prefix` + the field's JSON value, for every row: one array per field, so the final
        payload is a single join of as many parts as there are fields."""
        f = pf.field
        row = rows.row
        salt = stable_salt(self.salt, f.name)
        if f.mutable:
            keys = (
                (row.astype(np.uint64) << np.uint64(24))
                | (rows.version.astype(np.uint64) << np.uint64(4))
                | rows.variant.astype(np.uint64)
            )
        else:
            keys = row.astype(np.uint64) << np.uint64(24)
        quote = '"' if (f.json_type == "string" or pf.retyped) else ""
        null_key = f.kind == "pk" or (f.kind == "email" and self.primary_key == "email")
        if f.kind == "pk":
            text = pc.binary_join_element_wise(prefix + quote, self._pk_text(row), quote, "")
        elif f.kind == "email":
            text = pc.binary_join_element_wise(prefix + '"', emails(), '"', "")
        elif f.kind == "name":
            first = f.pool == "first_names"
            pool, n = (_FIRST, len(FIRST_NAMES)) if first else (_LAST, len(LAST_NAMES))
            which = hash64(row, self.salt ^ (0xF1 if first else 0xF2)) % np.uint64(n)
            return self._keyed_pool(pool, prefix).take(pa.array(which))
        elif f.kind in ("pool", "array", "object"):
            pool = _POOLS[f.pool]
            h = hash64(keys, salt) % np.uint64(len(pool))
            return self._keyed_pool(pool, prefix).take(pa.array(h))
        elif f.kind == "bool":
            h = hash64(keys, salt)
            return self._keyed_pool(_BOOL, prefix).take(
                pa.array((h % np.uint64(10) < np.uint64(8)).astype(np.int8)))
        elif f.kind == "int":
            h = hash64(keys, salt)
            value = (h % np.uint64(f.hi - f.lo + 1)).astype(np.int64) + f.lo
            text = pc.binary_join_element_wise(prefix + quote, _num_text(value), quote, "")
        elif f.kind == "money":
            h = hash64(keys, salt)
            dollars = (h % np.uint64(f.hi - f.lo + 1)).astype(np.int64) + f.lo
            cents = pa.array((h >> np.uint64(40)) % np.uint64(100))
            text = pc.binary_join_element_wise(
                prefix + quote, _num_text(dollars), ".", _CENTS.take(cents), quote, "")
        elif f.kind in ("ts", "changed_at"):
            if f.kind == "ts":  # an immutable moment within the ~3 years before 2026-09
                h = hash64(keys, salt)
                epoch = 1_690_000_000 + (h % np.uint64(94_000_000)).astype(np.int64)
            else:
                epoch = rows.changed_at + rows.variant
            ts = pa.array(epoch.astype("datetime64[s]"))
            text = pc.replace_substring(pc.cast(ts, pa.string()), " ", "T")
            text = pc.binary_join_element_wise(prefix + '"', text, 'Z"', "")
        else:
            raise ValueError(f"unknown field kind {f.kind!r}")
        if null_key and rows.is_null.any():
            text = pc.if_else(pa.array(rows.is_null), prefix + "null", text)
        return text

    def payloads(self, fields: Sequence[PayloadField], rows: Rows, emails=None) -> pa.Array:
        """record_payload: the source record as compact JSON object text."""
        if emails is None:
            emails = _lazy(lambda: self.raw_email(rows.row))
        parts: list = []
        for i, pf in enumerate(fields):
            prefix = ("{" if i == 0 else ",") + json.dumps(pf.field.name) + ":"
            parts.append(self._field_text(pf, rows, prefix, emails))
        if not parts:
            return pc.fill_null(pa.nulls(len(rows), pa.string()), "{}")
        parts.append("}")
        return pc.binary_join_element_wise(*parts, "")

    def render(self, fields: Sequence[PayloadField], rows: Rows, codes: np.ndarray
               ) -> tuple[pa.Array, pa.Array, pa.Array]:
        """identifier, record_payload and status_message for `rows`, sharing their emails."""
        emails = _lazy(lambda: self.raw_email(rows.row))
        if self.primary_key == "email":
            ident = emails()
            if rows.is_null.any():
                ident = pc.if_else(pa.array(rows.is_null), pa.scalar(None, pa.string()), ident)
        else:
            ident = self.identifiers(rows)
        payload = self.payloads(fields, rows, emails)
        message = self.messages(codes, rows, [f.field.name for f in fields])
        return ident, payload, message

    # --- rejection messages ---------------------------------------------------------------------

    def template_codes(self) -> _TemplateTable:
        return self._templates

    def messages(self, codes: np.ndarray, rows: Rows, field_names: Sequence[str]) -> pa.Array:
        """status_message per record: null where code < 0, else the template filled for the row."""
        hit = codes >= 0
        n = len(codes)
        if not hit.any():
            return pa.nulls(n, pa.string())
        idx = np.flatnonzero(hit)
        sub = rows.take(idx)
        t = self._templates
        c = codes[idx]
        kinds = t.kind[c]
        values: list[pa.Array] = []
        for kind in range(len(_KINDS)):
            if not (kinds == kind).any():
                values.append(pa.nulls(len(idx), pa.string()))
                continue
            row = sub.row
            if _KINDS[kind] == "email":
                values.append(self.raw_email(row))
            elif _KINDS[kind] == "id":
                number = permute40(row, self.salt ^ 0x1D) % np.uint64(10**8)
                values.append(pc.utf8_lpad(_num_text(number), 8, "0"))
            elif _KINDS[kind] == "num":
                number = (hash64(row, self.salt ^ 0x2E) % np.uint64(119)).astype(np.int64)
                values.append(_num_text(2 + number))
            elif _KINDS[kind] == "field":
                names = pa.array(list(field_names))
                which = hash64(row, self.salt ^ 0x3F) % np.uint64(len(names))
                values.append(names.take(pa.array(which)))
            else:
                values.append(pc.fill_null(pa.nulls(len(idx), pa.string()), ""))
        value = pc.choose(pa.array(kinds), *values)
        compact = pc.binary_join_element_wise(
            t.prefix.take(pa.array(c)), value, t.suffix.take(pa.array(c)), ""
        )
        position = np.zeros(n, dtype=np.int64)
        position[idx] = np.arange(len(idx))
        return compact.take(pa.array(position, mask=~hit))


_KINDS = ("none", "email", "id", "num", "field")


class _TemplateTable:
    """A destination's message templates split around their placeholder, indexed by code."""

    def __init__(self, destination: Destination):
        texts: list[str] = []

        def add(text: str | None) -> int:
            if text is None:
                return -1
            texts.append(text)
            return len(texts) - 1

        self.rate_limit = add(destination.rate_limit)
        self.invalid_email = add(destination.invalid_email)
        self.not_found = add(destination.not_found)
        self.duplicate = add(destination.duplicate)
        self.auth = add(destination.auth_error)
        first_generic = len(texts)
        for text, _ in destination.rejections:
            add(text)
        # ordinary rejections, plus single records throttled after the engine's own retries
        self.generic = np.array([*range(first_generic, len(texts)), self.rate_limit])
        weights = np.array([w for _, w in destination.rejections] + [0.6], dtype=float)
        self.generic_p = weights / weights.sum()
        prefix, kind, suffix = [], [], []
        for text in texts:
            for k, name in enumerate(_KINDS):
                token = "{" + name + "}"
                if k and token in text:
                    before, after = text.split(token, 1)
                    prefix.append(before)
                    suffix.append(after)
                    kind.append(k)
                    break
            else:
                prefix.append(text)
                suffix.append("")
                kind.append(0)
        self.texts = texts
        self.prefix = pa.array(prefix)
        self.suffix = pa.array(suffix)
        self.kind = np.array(kind, dtype=np.int8)
