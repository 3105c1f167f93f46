"""Payload rules of sync_changelog, applied as it reads the records: privacy (drop / salted hash
of top-level fields) and the size limit (truncation marker), on hand-made records; expected texts
written out.

Hashes are computed here with hashlib from the documented formula, sha256(salt || value), not
with the model's own helper."""

import hashlib
import json

import pytest
from pyspark.sql import functions as F

from record_rows import read_record
from sync_logs.canonical import changelog as changelog_rules
from sync_logs.canonical import payloads as payload_rules
from sync_logs.canonical import records as record_reading

SALT = "pepper"
NO_RULES = {"drop": [], "hash": [], "salt": "", "max_bytes": None}


def h(value: str, salt: str = SALT) -> str:
    return hashlib.sha256((salt + value).encode("utf-8")).hexdigest()


def sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def record(index, payload, identifier="a", problem=None):
    return read_record(
        row_index=index, identifier=identifier, record_payload=payload, payload_problem=problem
    )


def frame(spark, rows):
    return spark.createDataFrame(rows, record_reading.RECORD_SCHEMA)


def payloads(result) -> dict:
    return {
        r["row_index"]: (r["record_payload"], r["payload_truncated"])
        for r in result.select("row_index", "record_payload", "payload_truncated").collect()
    }


def test_rewrite_drops_and_hashes_top_level_members_and_keeps_the_others_as_written():
    text = (
        '{ "email" : "Ann@X.com", "phone": "+1 555", "seats": 1.50, "tags": ["a", 1], '
        '"prefs": {"k": true}, "name": "Ann \\u00e9", "ok": true, "gone": null, "n": 1e3 }'
    )
    got = payload_rules.rewrite_payload(
        text,
        drop=frozenset({"phone"}),
        hashed=frozenset({"email", "seats", "tags", "prefs", "name", "ok", "gone"}),
        salt=SALT,
    )
    tags, prefs = h('["a", 1]'), h('{"k": true}')
    assert got == (
        "{"
        f'"email":"{h("Ann@X.com")}",'
        f'"seats":"{h("1.50")}",'
        f'"tags":"{tags}",'
        f'"prefs":"{prefs}",'
        f'"name":"{h("Ann é")}",'
        f'"ok":"{h("true")}",'
        '"gone":null,'
        '"n":1e3'
        "}"
    )
    # still a JSON object, with the same keys minus the dropped one
    assert list(json.loads(got)) == ["email", "seats", "tags", "prefs", "name", "ok", "gone", "n"]


def test_rewrite_handles_duplicate_keys_empty_objects_and_text_python_cannot_read():
    assert payload_rules.rewrite_payload(
        '{"email":"a","email":"b","v":1}', frozenset(), frozenset({"email"}), SALT
    ) == f'{{"email":"{h("a")}","email":"{h("b")}","v":1}}'
    assert payload_rules.rewrite_payload(
        '{"email":"a","v":1,"email":"b"}', frozenset({"email"}), frozenset(), ""
    ) == '{"v":1}'
    assert payload_rules.rewrite_payload(" {} ", frozenset({"x"}), frozenset(), "") == " {} "
    # single quotes: Spark's JSON reader accepts them, Python's does not
    single = "{'email': 'a'}"
    assert payload_rules.rewrite_payload(single, frozenset(), frozenset({"email"}), SALT) == (
        f'{{"_sync_logs_unparsed_payload_sha256":"{h(single)}"}}'
    )


def test_payload_rules_from_config_text():
    assert payload_rules.payload_rules('["b", "a", "a"]', '["email"]', "s", "100") == {
        "drop": ["a", "b"], "hash": ["email"], "salt": "s", "max_bytes": 100}
    assert payload_rules.payload_rules("[]", "[]", "", "null") == NO_RULES
    assert payload_rules.payload_rules(None, None, None, None) == NO_RULES
    assert payload_rules.payload_rules('"phone"', "[]", "", "null")["drop"] == ["phone"]
    # a limit given as text, as the SQL layer accepts it
    assert payload_rules.payload_rules("[]", "[]", "", '"65536"')["max_bytes"] == 65536


@pytest.mark.parametrize(
    "args, message",
    [
        (("[]", '["email"]', "", "null"), "sync_logs_payload_fields_to_hash is set but the salt "
         "is empty: set the environment variable SYNC_LOGS_PAYLOAD_HASH_SALT"),
        (('["email"]', '["email"]', "s", "null"), "in both"),
        (("[]", "[]", "", "0"), "var sync_logs_max_payload_bytes is 0: set it to a positive whole "
         r"number of bytes \(e.g. 65536\), or null for no limit"),
        (("[]", "[]", "", '"10kb"'), 'var sync_logs_max_payload_bytes is "10kb": set it'),
        (("[1]", "[]", "", "null"), "list of top-level field names"),
    ],
)
def test_payload_rules_refuse_what_cannot_be_applied_safely(args, message):
    with pytest.raises(ValueError, match=message):
        payload_rules.payload_rules(*args)


def test_no_rule_leaves_every_payload_as_read(spark):
    rows = [record(0, '{"email": "a@x.com"}'), record(1, "not json", problem="x")]
    result = payload_rules.protect_payloads(frame(spark, rows), NO_RULES)
    assert payloads(result) == {0: ('{"email": "a@x.com"}', False), 1: ("not json", False)}


def test_privacy_rewrites_only_payloads_holding_a_named_field(spark):
    rows = [
        record(0, '{"email": "a@x.com", "plan": "pro", "phone": "555"}'),
        record(1, '{"plan":   "free"}'),  # no named field: untouched, whitespace and all
        record(2, '{"emails": "b@x.com"}'),  # names match exactly
        record(3, '{"plan": "x", "email": "a@x.com"'),  # not an object: salted hash of the text
        record(4, None, problem="record_payload is null"),
        record(5, "", problem="record_payload is empty"),
    ]
    rows[3] = record(3, '{"plan": "x", "email": "a@x.com"', problem="not a JSON object")
    rules = {"drop": ["phone"], "hash": ["email"], "salt": SALT, "max_bytes": None}
    result = payload_rules.protect_payloads(frame(spark, rows), rules)
    assert payloads(result) == {
        0: (f'{{"email":"{h("a@x.com")}","plan":"pro"}}', False),
        1: ('{"plan":   "free"}', False),
        2: ('{"emails": "b@x.com"}', False),
        3: (h('{"plan": "x", "email": "a@x.com"'), False),
        4: (None, False),
        5: ("", False),
    }
    # every other column passes through
    assert result.columns == record_reading.RECORD_COLUMNS
    assert sorted(tuple(r) for r in result.drop("record_payload").collect()) == sorted(
        tuple(r) for r in frame(spark, rows).drop("record_payload").collect()
    )


def test_payloads_over_the_limit_become_the_marker_with_size_and_hash(spark):
    small = '{"v": 1}'  # 8 bytes
    big = '{"v": "ééé"}'  # 12 characters, 15 bytes
    other_big = '{"v": "ééè"}'
    rows = [record(0, small), record(1, big), record(2, other_big, identifier="b"),
            record(3, None, problem="record_payload is null")]
    rules = {**NO_RULES, "max_bytes": 14}
    got = payloads(payload_rules.protect_payloads(frame(spark, rows), rules))
    assert got == {
        0: (small, False),
        1: (f'{{"_sync_logs_truncated":true,"original_bytes":15,"sha256":"{sha(big)}"}}', True),
        2: (
            f'{{"_sync_logs_truncated":true,"original_bytes":15,"sha256":"{sha(other_big)}"}}',
            True,
        ),
        3: (None, False),
    }
    assert json.loads(got[1][0]) == {"_sync_logs_truncated": True, "original_bytes": 15,
                                     "sha256": sha(big)}
    # exactly at the limit is kept
    at_limit = payloads(payload_rules.protect_payloads(frame(spark, rows), {**rules,
                                                                            "max_bytes": 15}))
    assert at_limit[1] == (big, False)


def test_size_is_measured_after_the_privacy_rules(spark):
    text = '{"bio": "' + "x" * 50 + '", "v": 1}'
    rules = {"drop": ["bio"], "hash": [], "salt": "", "max_bytes": 20}
    assert payloads(payload_rules.protect_payloads(frame(spark, [record(0, text)]), rules)) == {
        0: ('{"v":1}', False)
    }


def test_changelog_carries_the_flag_and_distinguishes_truncated_originals(spark):
    rows = [record(0, '{"v": "' + "a" * 30 + '"}'), record(1, '{"v": "' + "b" * 30 + '"}'),
            record(2, '{"v": 1}', identifier="c")]
    rows[1] = record(1, '{"v": "' + "b" * 30 + '"}', identifier="b")
    records = payload_rules.protect_payloads(frame(spark, rows), {**NO_RULES, "max_bytes": 20})
    runs = spark.createDataFrame(
        [(10, 100, None, "mirror", None, None)],
        "sync_id bigint, sync_run_id bigint, sync_run_started_at timestamp, behavior string, "
        "split_group string, sync_run_error string",
    )
    changelog = changelog_rules.fold_redeliveries(records, runs)
    got = {
        r["row_id"]: (r["payload_truncated"], r["payload_hash"], r["fields"])
        for r in changelog.select("row_id", "payload_truncated", "payload_hash", "fields").collect()
    }
    assert got["a"][0] is True and got["b"][0] is True and got["c"][0] is False
    assert got["a"][1] != got["b"][1]
    assert json.loads(got["a"][2])["_sync_logs_truncated"] is True
    assert got["c"][2] == '{"v": 1}'
    assert changelog.filter(F.col("payload_truncated")).count() == 2
