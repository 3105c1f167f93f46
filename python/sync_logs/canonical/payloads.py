"""Payload rules, applied as records are read, before anything is written.

Top-level fields to drop, fields to replace by a salted SHA-256, and a size limit above which
the payload becomes a marker object. With none of them configured the payloads pass through
untouched.
"""

import hashlib
import json
from collections.abc import Iterator

import pyarrow as pa
from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F

from sync_logs.canonical.records import RECORD_COLUMNS, RECORD_SCHEMA

TRUNCATION_MARKER_KEY = "_sync_logs_truncated"


def _config_value(value):
    """A config value rendered from a var: JSON text (or, rendered natively, the value)."""
    if not isinstance(value, str):
        return value
    if value == "":
        return None
    try:
        return json.loads(value)
    except ValueError:
        return value  # a bare field name


def payload_rules(fields_to_drop, fields_to_hash, salt, max_payload_bytes) -> dict:
    """The payload rules from the model's config (JSON text rendered from the vars).

    Returns {"drop": [...], "hash": [...], "salt": str, "max_bytes": int | None}. Raises on a
    configuration that cannot be applied safely (hashing without a salt, a field both dropped
    and hashed, a limit that is not a positive integer), with the checks and messages of the
    macro `payload_rules_from` (tests/data/payload_rule_errors.csv holds both to them).
    """

    def names(text, var: str) -> list[str]:
        value = _config_value(text)
        if value is None:
            return []
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
            raise ValueError(
                f"{var} must be a list of top-level field names, got {json.dumps(value)}"
            )
        return sorted(set(value))

    drop = names(fields_to_drop, "sync_logs_payload_fields_to_drop")
    hashed = names(fields_to_hash, "sync_logs_payload_fields_to_hash")
    both = sorted(set(drop) & set(hashed))
    if both:
        raise ValueError(
            f"payload field(s) {json.dumps(both)} are in both sync_logs_payload_fields_to_drop and "
            "sync_logs_payload_fields_to_hash: name each field in one of them"
        )
    salt = salt or ""
    if hashed and not salt:
        raise ValueError(
            "sync_logs_payload_fields_to_hash is set but the salt is empty: set the environment "
            "variable SYNC_LOGS_PAYLOAD_HASH_SALT (a secret string, the same on every build) for "
            "the process that runs dbt"
        )
    limit = _config_value(max_payload_bytes)
    if isinstance(limit, str) and limit.isascii() and limit.isdigit():
        limit = int(limit)  # as the SQL layer reads it: "65536" is a number of bytes
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 1):
        raise ValueError(
            f"var sync_logs_max_payload_bytes is {json.dumps(limit, default=str)}: set it to a "
            "positive whole number of bytes (e.g. 65536), or null for no limit"
        )
    return {"drop": drop, "hash": hashed, "salt": salt, "max_bytes": limit}


def hash_value(canonical: str, salt: str) -> str:
    """Salted SHA-256 (hex) of a field's canonical text: the same in the SQL staging macro."""
    return hashlib.sha256((salt + canonical).encode("utf-8", "surrogatepass")).hexdigest()


_WHITESPACE = " \t\n\r"


def _skip(text: str, at: int) -> int:
    while at < len(text) and text[at] in _WHITESPACE:
        at += 1
    return at


UNPARSED_KEY = "_sync_logs_unparsed_payload_sha256"


def rewrite_payload(text: str, drop: frozenset, hashed: frozenset, salt: str, decoder=None) -> str:
    """`rewrite_members`, or, for text that Spark's JSON reader accepts but Python's does not
    (single quotes, ...), a JSON object holding only the salted SHA-256 of the whole text:
    the named fields cannot be found in it, so none of its values is kept."""
    try:
        return rewrite_members(text, drop, hashed, salt, decoder or json.JSONDecoder())
    except (ValueError, IndexError):
        return '{"' + UNPARSED_KEY + '":"' + hash_value(text, salt) + '"}'


def rewrite_members(
    text: str, drop: frozenset, hashed: frozenset, salt: str, decoder: json.JSONDecoder
) -> str:
    """A JSON object's text with top-level members in `drop` removed and those in `hashed`
    replaced by a JSON string: the salted SHA-256 of the value's canonical text (a string
    value's decoded text; any other value's JSON text as written). JSON null stays null. The
    other members keep their text exactly as written (key and value), in their order; the
    whitespace between members is not kept. `text` must be a JSON object."""
    members = []
    at = _skip(text, 0)
    if text[at] != "{":
        raise ValueError("not a JSON object")
    at = _skip(text, at + 1)
    if text[at] == "}":
        return text
    while True:
        key_start = at
        if text[at] != '"':
            raise ValueError("expected a key")
        key, at = decoder.raw_decode(text, at)
        key_text = text[key_start:at]
        at = _skip(text, at)
        if text[at] != ":":
            raise ValueError("expected ':'")
        value_start = _skip(text, at + 1)
        value, at = decoder.raw_decode(text, value_start)
        value_text = text[value_start:at]
        if key in hashed and value is not None:
            canonical = value if isinstance(value, str) else value_text
            value_text = '"' + hash_value(canonical, salt) + '"'
        if key not in drop:
            members.append(key_text + ":" + value_text)
        at = _skip(text, at)
        if text[at] == "}":
            return "{" + ",".join(members) + "}"
        if text[at] != ",":
            raise ValueError("expected ',' or '}'")
        at = _skip(text, at + 1)


def payload_rewriter(drop: list[str], hashed: list[str], salt: str):
    """mapInArrow body: rewrites `record_payload` where `_rewrite` is true, nothing else.

    Only the rows to rewrite become Python strings; the other payloads stay Arrow buffers."""
    drop_set, hash_set = frozenset(drop), frozenset(hashed)

    def rewrite_batches(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        import pyarrow.compute as pc

        decoder = json.JSONDecoder()  # per task: a decoder does not pickle
        for batch in batches:
            names = [n for n in batch.schema.names if n != "_rewrite"]
            payload = batch.column("record_payload")
            mask = pc.fill_null(batch.column("_rewrite"), False)
            if pc.any(mask).as_py():
                chosen = pc.filter(payload, mask).to_pylist()
                rewritten = pa.array(
                    [rewrite_payload(t, drop_set, hash_set, salt, decoder) for t in chosen],
                    type=payload.type,
                )
                payload = pc.replace_with_mask(payload, mask, rewritten)
            columns = [payload if n == "record_payload" else batch.column(n) for n in names]
            yield pa.RecordBatch.from_arrays(columns, names=names)

    return rewrite_batches


def truncation_marker(payload: Column) -> Column:
    """The marker that replaces an over-size payload: a JSON object with its UTF-8 size and
    SHA-256 (hex), written as text so that the SQL staging macro writes the same bytes
    (`truncation_marker_start`; tests/data/payload_rules.csv holds both to them)."""
    return F.concat(
        F.lit('{"' + TRUNCATION_MARKER_KEY + '":true,"original_bytes":'),
        F.octet_length(payload).cast("string"),
        F.lit(',"sha256":"'),
        F.sha2(payload, 256),
        F.lit('"}'),
    )


def protect_payloads(records: DataFrame, rules: dict) -> DataFrame:
    """Apply the payload rules to `record_payload` (see payload_rules), before any write.

    Privacy (drop / hash of top-level fields): only payloads that are JSON objects holding at
    least one named field are rewritten (`rewrite_payload`, in a mapInArrow function: Spark
    has no built-in that removes a key from JSON text and keeps the other values' JSON types);
    a payload that is not a JSON object (flagged in `payload_problem`, loaded with
    fields = null) cannot be searched for fields, so its text is replaced by its salted SHA-256.
    Size: a payload (after the privacy rules) longer than `max_bytes` UTF-8 bytes becomes the
    marker object of `truncation_marker`, and `payload_truncated` is true. With no rule set,
    the frame is returned as it is."""
    payload = F.col("record_payload")
    if rules["drop"] or rules["hash"]:
        named = F.array(*[F.lit(name) for name in rules["drop"] + rules["hash"]])
        rewrite = F.col("payload_problem").isNull() & F.arrays_overlap(
            F.json_object_keys(payload), named
        )
        unreadable = (
            F.col("payload_problem").isNotNull() & payload.isNotNull() & (F.trim(payload) != "")
        )
        records = (
            records.withColumn(
                "record_payload",
                F.when(unreadable, F.sha2(F.concat(F.lit(rules["salt"]), payload), 256)).otherwise(
                    payload
                ),
            )
            .withColumn("_rewrite", F.coalesce(rewrite, F.lit(False)))
            .select(*RECORD_COLUMNS, "_rewrite")
            .mapInArrow(
                payload_rewriter(rules["drop"], rules["hash"], rules["salt"]), RECORD_SCHEMA
            )
        )
    if rules["max_bytes"] is not None:
        over = payload.isNotNull() & (F.octet_length(payload) > F.lit(rules["max_bytes"]))
        records = records.withColumn("payload_truncated", over).withColumn(
            "record_payload", F.when(over, truncation_marker(payload)).otherwise(payload)
        )
    return records.select(*RECORD_COLUMNS)
