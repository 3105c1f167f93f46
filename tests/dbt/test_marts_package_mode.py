"""Mode `package` end to end: the fixture of tests/dbt/project, written as the raw lake the
sync engine leaves (run folders with metadata.json and a parquet batch, plus metadata fact
files), goes through this package's Python models and then the SQL marts on the embedded
Spark. Every mart must equal the marts built from the hand-written canonical tables (mode
`tables`, on DuckDB; those are checked against hand-written rows in test_marts_engines.py).
"""

import importlib.util
import sys
from pathlib import Path

import pyarrow as pa
import pytest
from marts_harness import MARTS, Build, normalise_rows, unique_schema

from sync_logs.dbt_invoke import run_dbt

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import handmade_lake  # noqa: E402  (tests/ helper, imported by path like the other tests)

PROJECT_DIR = Path(__file__).resolve().parents[2]  # the checkout
FIXTURE = Path(__file__).resolve().parent / "project" / "scripts" / "write_fixture.py"


def load_fixture():
    spec = importlib.util.spec_from_file_location("sync_logs_fixture", FIXTURE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def write_lake(root: Path) -> None:
    fixture = load_fixture()
    runs = {(r[0], r[1]): r for r in fixture.RUNS}
    for (sync_id, run), (_, _, started, finished, status, error) in runs.items():
        name, model_id, source_object_id, destination, destination_id, object_id = (
            fixture.SYNCS[sync_id])
        start = fixture.ts(started)
        sent = start + fixture.timedelta(minutes=1)
        records = [
            handmade_lake.rec(
                row_id, fixture.json.dumps(fields), operation, raw,
                reason if raw == "rejected" else None,
                None if status_ == "aborted" else sent.replace(tzinfo=fixture_utc()),
                None if status_ == "aborted"
                else (sent + fixture.timedelta(minutes=1)).replace(tzinfo=fixture_utc()),
            )
            for (_, s, r, row_id, _, status_, reason, fields, operation, raw, _)
            in fixture.RECORDS if (s, r) == (sync_id, run)
        ]
        meta = handmade_lake.metadata(
            fixture.ORG, sync_id, run, start.replace(tzinfo=fixture_utc()),
            sync_run_finished_at=(fixture.ts(finished).strftime("%Y-%m-%dT%H:%M:%SZ")
                                  if finished else None),
            sync_run_status=status, sync_run_error=error, model_name=name, model_id=model_id,
            source={"type": "snowflake", "id": 5, "object_id": source_object_id,
                    "object_name": name},
            destination={"type": destination, "id": destination_id, "object_id": object_id,
                         "object_type": "", "object_name": ""},
        )
        handmade_lake.write_run(root, fixture.ORG, sync_id, run, start, meta=meta,
                                batches={"records_updated.0.parquet": records})
    ids = pa.int64()
    handmade_lake.write_facts(
        root, fixture.ORG, "source_objects",
        [dict(zip(["id", "type", "name", "model_id", "business_object_id", "filter_segment_id",
                   "cohort_id"], row, strict=True)) for row in fixture.SOURCE_OBJECTS],
        pa.schema([("id", ids), ("type", pa.string()), ("name", pa.string()),
                   ("model_id", ids), ("business_object_id", ids),
                   ("filter_segment_id", ids), ("cohort_id", ids)]))
    for name, rows in (("destinations", fixture.DESTINATIONS),
                       ("destination_objects", fixture.DESTINATION_OBJECTS)):
        handmade_lake.write_facts(
            root, fixture.ORG, name,
            [dict(zip(["id", "type", "name"], row, strict=True)) for row in rows],
            pa.schema([("id", ids), ("type", pa.string()), ("name", pa.string())]))


def fixture_utc():
    from datetime import UTC

    return UTC


@pytest.fixture(scope="module")
def package_schema(spark, tmp_path_factory):
    work = tmp_path_factory.mktemp("marts_package")
    lake = work / "lake"
    write_lake(lake)
    schema = unique_schema("marts_package")
    # cautious: leave out the tests that also read canonical relations the marts do not need
    # the unit tests run in test_marts_engines, on this engine too
    run_dbt(["build", "--select", "+path:models/marts", "--indirect-selection", "cautious",
             "--exclude", "resource_type:unit_test"],
            project_dir=PROJECT_DIR,
            target_dir=work, dbt_vars={"raw_root": str(lake)},
            env={"SYNC_LOGS_SCHEMA": schema})
    return schema


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    return Build("duckdb", tmp_path_factory.mktemp("marts_package_reference")).build()


@pytest.mark.parametrize("mart", MARTS)
def test_package_mode_gives_the_marts_of_the_canonical_fixture(spark, package_schema,
                                                               reference, mart):
    frame = spark.table(f"{package_schema}.{mart}")
    frame = frame.selectExpr(*[
        f"cast(`{f.name}` as string) as `{f.name}`"
        if f.dataType.typeName() in ("timestamp", "timestamp_ntz") else f"`{f.name}`"
        for f in frame.schema.fields
    ])
    rows = normalise_rows(frame.columns, [tuple(r) for r in frame.collect()])
    assert rows == reference.rows(mart)
