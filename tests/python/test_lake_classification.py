"""The listing classified on the driver (issue 36): `lake.classify` and `manifest.list_folders`
are plain Python over the listed tuples, with the rules Spark applied before (`rlike` and
`regexp_extract` in Java's regex dialect, Spark's string order, `sha2` of `concat_ws`), so that
a warehouse built before sees an unchanged lake as unchanged. Expected rows are written out by
hand; the digests are taken here of the texts written out by hand."""

import hashlib

from sync_logs.canonical import lake, manifest

ROOT = "file:/lake"
RUNS = f"{ROOT}/{lake.RUN_AREA}"
FACTS = f"{ROOT}/{lake.FACT_AREA}"
MICROS = 1_790_000_000_123_000
WRONG_RUN_DEPTH = (
    "file at the wrong folder depth (expected "
    "sync_tracking_datasets/<org_id>/<sync_id>/<sync_run_id>/<file>)"
)
CONFLICT = (
    "2 folders name org_id 42, sync_id 1203, sync_run_id 880117 "
    "('42/1203/0880117', '42/1203/880117'): neither is loaded"
)


def listed(*paths: str) -> list[tuple]:
    """(area, path, length, micros) of files at `paths` (below the lake root), 10 bytes each."""
    return [(path.split("/", 1)[0], f"{ROOT}/{path}", 10, MICROS) for path in paths]


def row(path: str, **columns) -> lake.LakeFile:
    """A classified file: `columns` written out, the others null (length and time as listed)."""
    values = dict.fromkeys(lake.LAKE_FILE_COLUMNS)
    values.update(path=f"{ROOT}/{path}", length=10, modification_time=MICROS, hidden_depth=0)
    values.update(columns)
    return lake.LakeFile(**values)


def run_ids(org: str, sync: str, run: str) -> dict:
    return {
        "org_id_text": org,
        "sync_id_text": sync,
        "sync_run_id_text": run,
        "org_id": int(org) if org.isdigit() else None,
        "sync_id": int(sync) if sync.isdigit() else None,
        "sync_run_id": int(run) if run.isdigit() else None,
    }


def test_each_kind_of_odd_file_is_classified_as_spark_classified_it():
    files = lake.classify(
        listed(
            "sync_tracking_datasets/42/1203/880117/metadata.json",
            "sync_tracking_datasets/42/1203/0880117/metadata.json",
            "sync_tracking_datasets/42/1203/880118/récords.2.parquet",
            "sync_tracking_datasets/42/1203/880118/a.1234567890.parquet",
            "sync_tracking_datasets/42/1203/880118/notes.txt",
            "sync_tracking_datasets/42/1203/880118/_SUCCESS",
            "sync_tracking_datasets/42/_temporary/0/part-0",
            "sync_tracking_datasets/42/12a/880118/metadata.json",
            "sync_tracking_datasets/42/README",
            "sync_tracking_datasets/42/1203/880118/a\nb.0.parquet",
            "metadata/42/é.parquet",
        )
    )
    run_folder = f"{RUNS}/42/1203/880118"
    assert files == [
        row(
            "sync_tracking_datasets/42/1203/880117/metadata.json",
            area=lake.RUN_AREA,
            relative_path="42/1203/880117/metadata.json",
            folder_path=f"{RUNS}/42/1203/880117",
            file_name="metadata.json",
            depth=4,
            **run_ids("42", "1203", "880117"),
            file_kind="run_metadata",
            problem=CONFLICT,
            folder_conflict=CONFLICT,
        ),
        row(
            "sync_tracking_datasets/42/1203/0880117/metadata.json",
            area=lake.RUN_AREA,
            relative_path="42/1203/0880117/metadata.json",
            folder_path=f"{RUNS}/42/1203/0880117",
            file_name="metadata.json",
            depth=4,
            **run_ids("42", "1203", "0880117"),
            file_kind="run_metadata",
            problem=CONFLICT,
            folder_conflict=CONFLICT,
        ),
        row(
            "sync_tracking_datasets/42/1203/880118/récords.2.parquet",
            area=lake.RUN_AREA,
            relative_path="42/1203/880118/récords.2.parquet",
            folder_path=run_folder,
            file_name="récords.2.parquet",
            depth=4,
            **run_ids("42", "1203", "880118"),
            file_kind="record_batch",
            batch_type="récords",
            batch_number=2,
        ),
        # A batch number of more than 9 digits is part of the batch type.
        row(
            "sync_tracking_datasets/42/1203/880118/a.1234567890.parquet",
            area=lake.RUN_AREA,
            relative_path="42/1203/880118/a.1234567890.parquet",
            folder_path=run_folder,
            file_name="a.1234567890.parquet",
            depth=4,
            **run_ids("42", "1203", "880118"),
            file_kind="record_batch",
            batch_type="a.1234567890",
        ),
        row(
            "sync_tracking_datasets/42/1203/880118/notes.txt",
            area=lake.RUN_AREA,
            relative_path="42/1203/880118/notes.txt",
            folder_path=run_folder,
            file_name="notes.txt",
            depth=4,
            **run_ids("42", "1203", "880118"),
            file_kind="stray",
            problem=lake.STRAY_RUN_FILE,
        ),
        row(
            "sync_tracking_datasets/42/1203/880118/_SUCCESS",
            area=lake.RUN_AREA,
            relative_path="42/1203/880118/_SUCCESS",
            folder_path=run_folder,
            file_name="_SUCCESS",
            depth=4,
            **run_ids("42", "1203", "880118"),
            file_kind="hidden",
            hidden_depth=4,
            ignored_folder=run_folder,
            ignored_name="_SUCCESS",
        ),
        row(
            "sync_tracking_datasets/42/_temporary/0/part-0",
            area=lake.RUN_AREA,
            relative_path="42/_temporary/0/part-0",
            folder_path=f"{RUNS}/42/_temporary/0",
            file_name="part-0",
            depth=4,
            **run_ids("42", "_temporary", "0"),
            file_kind="hidden",
            hidden_depth=2,
            ignored_folder=f"{RUNS}/42",
            ignored_name="_temporary/0/part-0",
        ),
        row(
            "sync_tracking_datasets/42/12a/880118/metadata.json",
            area=lake.RUN_AREA,
            relative_path="42/12a/880118/metadata.json",
            folder_path=f"{RUNS}/42/12a/880118",
            file_name="metadata.json",
            depth=4,
            **run_ids("42", "12a", "880118"),
            file_kind="run_metadata",
            problem="sync_id folder name is not an integer: '12a'",
        ),
        row(
            "sync_tracking_datasets/42/README",
            area=lake.RUN_AREA,
            relative_path="42/README",
            file_name="README",
            depth=2,
            org_id_text="42",
            org_id=42,
            file_kind="stray",
            problem=WRONG_RUN_DEPTH,
        ),
        # Java's `.` matches no line terminator: Spark found no relative path in this one.
        row(
            "sync_tracking_datasets/42/1203/880118/a\nb.0.parquet",
            area=lake.RUN_AREA,
            relative_path="",
            file_name="",
            depth=1,
            file_kind="stray",
            problem=WRONG_RUN_DEPTH,
        ),
        row(
            "metadata/42/é.parquet",
            area=lake.FACT_AREA,
            relative_path="42/é.parquet",
            folder_path=f"{FACTS}/42",
            file_name="é.parquet",
            depth=2,
            org_id_text="42",
            org_id=42,
            file_kind="stray",
            problem="stray file: not one of " + ", ".join(lake.FACT_FILES),
        ),
    ]


def test_the_folders_hold_the_digests_spark_computed():
    """`list_folders`: fingerprints as Spark's `sha2` of its sorted, joined texts (UTF-8 byte
    order: `z` before `é`), the conflict after the loadable files; files in path order."""
    paths = [
        "sync_tracking_datasets/42/1203/880117/records.0.parquet",
        "sync_tracking_datasets/42/1203/880117/metadata.json",
        "sync_tracking_datasets/42/1203/880117/é.0.parquet",
        "sync_tracking_datasets/42/1203/880117/z.0.parquet",
        "sync_tracking_datasets/42/1203/880117/notes.txt",
        "sync_tracking_datasets/42/1203/880117/_SUCCESS",
        "sync_tracking_datasets/42/1203/0880117/metadata.json",
        "metadata/42/destinations.parquet",
    ]
    folders = {f["folder_key"]: f for f in manifest.list_folders(lake.classify(listed(*paths)))}
    assert sorted(folders) == ["metadata/42//", "sync_tracking_datasets/42/1203/880117"]
    run = folders["sync_tracking_datasets/42/1203/880117"]
    loadable = (
        f"metadata.json|10|{MICROS}\nmetadata.json|10|{MICROS}\nrecords.0.parquet|10|{MICROS}\n"
        f"z.0.parquet|10|{MICROS}\né.0.parquet|10|{MICROS}\n{CONFLICT}"
    )
    assert run["fingerprint"] == hashlib.sha256(loadable.encode()).hexdigest()
    listing = "\n".join(
        f"{RUNS}/42/1203/{name}|10|{MICROS}"
        for name in [
            "0880117/metadata.json",
            "880117/_SUCCESS",
            "880117/metadata.json",
            "880117/notes.txt",
            "880117/records.0.parquet",
            "880117/z.0.parquet",
            "880117/é.0.parquet",
        ]
    )
    assert run["listing_fingerprint"] == hashlib.sha256(listing.encode()).hexdigest()
    assert [file.path for file in run["files"]] == [
        line.split("|")[0] for line in listing.split("\n")
    ]
    assert {name: run[name] for name in manifest.RUN_LISTING_COLUMNS} == {
        "run_folder": f"{RUNS}/42/1203/0880117",
        "fingerprint": run["fingerprint"],
        "metadata_path": f"{RUNS}/42/1203/880117/metadata.json",
        "record_file_count": 3,
        "record_bytes": 30,
        "last_modified_at": MICROS,
    }
    assert run["folder_conflict"] == CONFLICT and run["is_run_folder"]
    facts = folders["metadata/42//"]
    assert not facts["is_run_folder"]
    assert all(facts[name] is None for name in [*manifest.RUN_LISTING_COLUMNS, "folder_conflict"])
    entry = f"{FACTS}/42/destinations.parquet|10|{MICROS}"
    assert facts["listing_fingerprint"] == hashlib.sha256(entry.encode()).hexdigest()
