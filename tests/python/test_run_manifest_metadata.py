"""Run manifest: metadata.json key aliases, timestamps, validity; lake file classification."""

import json
from datetime import datetime

import pytest

from sync_logs.canonical import lake as lake_listing
from sync_logs.canonical import metadata as metadata_rules

RUN_SCHEMA = (
    "org_id bigint, sync_id bigint, sync_run_id bigint, metadata_path string, metadata_text string"
)
CANONICAL = {
    "organization_id": 42,
    "workspace_id": 7,
    "sync_id": 1203,
    "sync_run_id": 880117,
    "sync_run_started_at": "2026-10-01T06:00:00Z",
    "sync_run_finished_at": "2026-10-01T06:03:12Z",
    "sync_run_status": "succeeded",
    "sync_run_error": None,
    "behavior": "mirror",
    "primary_key": "user_id",
    "model_name": "High-intent trial users",
    "model_id": 611,
    "split_group": None,
    "source": {"type": "snowflake", "id": 5, "object_id": 511, "object_name": "Trials"},
    "destination": {
        "type": "Salesforce::Connection",
        "id": 8,
        "object_id": 811,
        "object_type": "Salesforce::ObjectTypes::Contact",
        "object_name": "Contact",
    },
    "record_payload_schema": {"email": "string", "seats": "number"},
}
PARSED = [
    "is_valid",
    "invalid_reason",
    "unknown_keys",
    "workspace_id",
    "sync_run_started_at",
    "sync_run_finished_at",
    "sync_run_status",
    "behavior",
    "primary_key",
    "model_name",
    "model_id",
    "source_type",
    "source_id",
    "source_object_id",
    "source_object_name",
    "destination_type",
    "destination_id",
    "destination_object_id",
    "destination_object_type",
    "destination_object_name",
]
EXPECTED_CANONICAL = (
    True,
    None,
    [],
    7,
    datetime(2026, 10, 1, 6, 0, 0),
    datetime(2026, 10, 1, 6, 3, 12),
    "succeeded",
    "mirror",
    "user_id",
    "High-intent trial users",
    611,
    "snowflake",
    5,
    511,
    "Trials",
    "Salesforce::Connection",
    8,
    811,
    "Salesforce::ObjectTypes::Contact",
    "Contact",
)


def parse(spark, text, path="lake/42/1203/880117/metadata.json", ids=(42, 1203, 880117)):
    frame = spark.createDataFrame([(*ids, path, text)], RUN_SCHEMA)
    return metadata_rules.parse_metadata(frame).select(*PARSED).collect()[0]


def camel(doc):
    def key(name):
        head, *rest = name.split("_")
        return head + "".join(part.capitalize() for part in rest)

    return {
        key(k): ({key(kk): vv for kk, vv in v.items()} if k in ("source", "destination") else v)
        for k, v in doc.items()
    }


def test_canonical_spelling(spark):
    assert tuple(parse(spark, json.dumps(CANONICAL))) == EXPECTED_CANONICAL


def test_camel_case_keys_nested_too(spark):
    assert tuple(parse(spark, json.dumps(camel(CANONICAL)))) == EXPECTED_CANONICAL


def test_sync_configuration_id_and_completed_at_aliases(spark):
    doc = dict(CANONICAL)
    doc["sync_configuration_id"] = doc.pop("sync_id")
    doc["completed_at"] = doc.pop("sync_run_finished_at")
    assert tuple(parse(spark, json.dumps(doc))) == EXPECTED_CANONICAL


def test_unknown_keys_are_listed_not_fatal(spark):
    doc = {**CANONICAL, "engine_version": "2026.10", "Zeta": 1}
    row = parse(spark, json.dumps(doc))
    assert (row["is_valid"], row["unknown_keys"]) == (True, ["Zeta", "engine_version"])


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2026-10-01T06:00:00Z", datetime(2026, 10, 1, 6, 0, 0)),
        ("2026-10-01T06:00:00", datetime(2026, 10, 1, 6, 0, 0)),  # no suffix: UTC
        ("2026-10-01T06:00:00.250", datetime(2026, 10, 1, 6, 0, 0, 250000)),
        ("2026-10-01T08:00:00+02:00", datetime(2026, 10, 1, 6, 0, 0)),
        ("2026-10-01T01:00:00.500-0500", datetime(2026, 10, 1, 6, 0, 0, 500000)),
        ("2026-10-01T11:30:00+05:30", datetime(2026, 10, 1, 6, 0, 0)),
        ("2026-10-01 06:00:00", datetime(2026, 10, 1, 6, 0, 0)),
        ("2026-10-01T06:00Z", datetime(2026, 10, 1, 6, 0, 0)),
        ("2026-10-01T06:00:00+00:00", datetime(2026, 10, 1, 6, 0, 0)),
    ],
)
def test_timestamps_with_and_without_zone_become_utc(spark, text, expected):
    doc = {**CANONICAL, "sync_run_started_at": text}
    assert parse(spark, json.dumps(doc))["sync_run_started_at"] == expected


@pytest.mark.parametrize(
    ("text", "path", "reason"),
    [
        (None, None, "metadata.json is missing"),
        ("{not json", "p", "metadata.json is not a JSON object"),
        ("[1, 2]", "p", "metadata.json is not a JSON object"),
        ("", "p", "metadata.json is not a JSON object"),
        (
            json.dumps({k: v for k, v in CANONICAL.items() if k != "sync_run_started_at"}),
            "p",
            "metadata.json lacks required field(s): sync_run_started_at",
        ),
        (
            json.dumps(
                {k: v for k, v in CANONICAL.items() if k not in ("sync_id", "organization_id")}
            ),
            "p",
            "metadata.json lacks required field(s): organization_id, sync_id",
        ),
        (
            json.dumps({**CANONICAL, "sync_run_started_at": "yesterday"}),
            "p",
            "metadata.json has unparseable value(s) (integer / ISO-8601 expected): "
            "sync_run_started_at",
        ),
        (
            json.dumps({**CANONICAL, "sync_run_id": 880118}),
            "p",
            "metadata.json sync_run_id 880118 contradicts the folder's 880117",
        ),
        (
            json.dumps({**CANONICAL, "organization_id": 43}),
            "p",
            "metadata.json organization_id 43 contradicts the folder's 42",
        ),
        (
            '{"sync_id": 1203, "sync_id": 1204}',
            "p",
            "metadata.json is not a JSON object",
        ),
    ],
)
def test_invalid_metadata_is_quarantined_with_its_reason(spark, text, path, reason):
    row = parse(spark, text, path=path)
    assert (row["is_valid"], row["invalid_reason"]) == (False, reason)


LISTING_SCHEMA = "path string, length bigint, modification_time timestamp, area string"


def test_lake_files_classification(spark):
    root = "s3a://bucket/lake"
    listed = [
        ("sync_tracking_datasets", "1/10/100/metadata.json"),
        ("sync_tracking_datasets", "1/10/100/records_updated.3.parquet"),
        ("sync_tracking_datasets", "1/10/100/records_rejected.parquet"),
        ("sync_tracking_datasets", "1/10/100/README"),
        ("sync_tracking_datasets", "1/README"),
        ("sync_tracking_datasets", "1/10/100/extra/records_updated.0.parquet"),
        ("sync_tracking_datasets", "1-staging/10/100/metadata.json"),
        ("sync_tracking_datasets", "1/10_backup/100/metadata.json"),
        ("sync_tracking_datasets", "1/10/100-retry/records_updated.0.parquet"),
        ("metadata", "1/destinations.parquet"),
        ("metadata", "1/notes.parquet"),
        ("metadata", "1/2/destinations.parquet"),
    ]
    frame = spark.createDataFrame(
        [(f"{root}/{area}/{rel}", 1, datetime(2026, 1, 1), area) for area, rel in listed],
        LISTING_SCHEMA,
    )
    got = [
        tuple(r)
        for r in lake_listing.classify_files(frame)
        .select(
            "relative_path",
            "file_kind",
            "org_id",
            "sync_id",
            "sync_run_id",
            "batch_type",
            "batch_number",
            "folder_path",
            "problem",
        )
        .collect()
    ]
    run_folder = f"{root}/sync_tracking_datasets/1/10/100"
    wrong_run_depth = (
        "file at the wrong folder depth (expected "
        "sync_tracking_datasets/<org_id>/<sync_id>/<sync_run_id>/<file>)"
    )
    expected = [
        ("1/10/100/metadata.json", "run_metadata", 1, 10, 100, None, None, run_folder, None),
        (
            "1/10/100/records_updated.3.parquet",
            "record_batch",
            1,
            10,
            100,
            "records_updated",
            3,
            run_folder,
            None,
        ),
        (
            "1/10/100/records_rejected.parquet",
            "record_batch",
            1,
            10,
            100,
            "records_rejected",
            None,
            run_folder,
            None,
        ),
        (
            "1/10/100/README",
            "stray",
            1,
            10,
            100,
            None,
            None,
            run_folder,
            "stray file: neither metadata.json nor <batch_type>.<batch_number>.parquet",
        ),
        ("1/README", "stray", 1, None, None, None, None, None, wrong_run_depth),
        (
            "1/10/100/extra/records_updated.0.parquet",
            "record_batch",
            1,
            10,
            100,
            "records_updated",
            0,
            None,
            wrong_run_depth,
        ),
        (
            "1-staging/10/100/metadata.json",
            "run_metadata",
            None,
            10,
            100,
            None,
            None,
            f"{root}/sync_tracking_datasets/1-staging/10/100",
            "org_id folder name is not an integer: '1-staging'",
        ),
        (
            "1/10_backup/100/metadata.json",
            "run_metadata",
            1,
            None,
            100,
            None,
            None,
            f"{root}/sync_tracking_datasets/1/10_backup/100",
            "sync_id folder name is not an integer: '10_backup'",
        ),
        (
            "1/10/100-retry/records_updated.0.parquet",
            "record_batch",
            1,
            10,
            None,
            "records_updated",
            0,
            f"{root}/sync_tracking_datasets/1/10/100-retry",
            "sync_run_id folder name is not an integer: '100-retry'",
        ),
        ("1/destinations.parquet", "fact", 1, None, None, None, None, f"{root}/metadata/1", None),
        (
            "1/notes.parquet",
            "stray",
            1,
            None,
            None,
            None,
            None,
            f"{root}/metadata/1",
            "stray file: not one of source_objects.parquet, destinations.parquet, "
            "destination_objects.parquet",
        ),
        (
            "1/2/destinations.parquet",
            "fact",
            1,
            None,
            None,
            None,
            None,
            None,
            "file at the wrong folder depth (expected metadata/<org_id>/<file>)",
        ),
    ]
    # in any order: classification groups by folder
    assert sorted(got, key=repr) == sorted(expected, key=repr)
