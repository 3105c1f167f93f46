"""append_run: one more run of exactly N records, the newest of the busiest sync of a generated
lake, over the same population of rows. Read back with pyarrow and json; no Spark."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pyarrow.parquet as pq
import pytest

from sync_logs_dev.generator import generate_lake
from sync_logs_dev.generator_increment import append_run

ARGS = dict(syncs=6, runs_per_sync=5, seed=3)
LAKE_RECORDS = 6_000


def started_at(run_dir) -> datetime:
    doc = json.loads((run_dir / "metadata.json").read_text())
    text = doc.get("sync_run_started_at") or doc.get("syncRunStartedAt")
    moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)  # no zone: UTC


def identifiers(run_dir) -> set[str]:
    return {i for p in run_dir.glob("*.parquet")
            for i in pq.read_table(p, columns=["identifier"]).column(0).to_pylist() if i}


@pytest.fixture(scope="module")
def lake(tmp_path_factory):
    root = tmp_path_factory.mktemp("increment") / "lake"
    generate_lake(root, records=LAKE_RECORDS, **ARGS)
    before = {p for p in root.glob("sync_tracking_datasets/*/*/*")}
    info = append_run(root, 2_000, lake_records=LAKE_RECORDS, **ARGS)
    return root, before, info


def test_one_new_run_of_exactly_the_records_asked(lake):
    root, before, info = lake
    new = {p for p in root.glob("sync_tracking_datasets/*/*/*")} - before
    assert [p.relative_to(root).as_posix() for p in new] == [info["path"]]
    run = root / info["path"]
    assert sum(pq.ParquetFile(p).metadata.num_rows for p in run.glob("*.parquet")) == 2_000
    assert info["records"] == 2_000
    doc = json.loads((run / "metadata.json").read_text())
    assert (doc["organization_id"], doc["sync_id"], doc["sync_run_id"]) == (
        info["org_id"], info["sync_id"], info["sync_run_id"])
    assert doc["sync_run_status"] == "succeeded"


def test_newest_run_of_the_lake_with_the_next_run_id(lake):
    root, before, info = lake
    run = root / info["path"]
    earlier = [p for p in before if p.is_dir()]
    assert info["sync_run_id"] > max(int(p.name) for p in earlier)
    assert started_at(run) > max(started_at(p) for p in earlier)


def test_same_population_rows_seen_before_come_back(lake):
    root, before, info = lake
    run = root / info["path"]
    seen = set().union(*(identifiers(p) for p in before if p.parent.name == str(info["sync_id"])))
    new = identifiers(run)
    assert info["behavior"] == "mirror"
    assert new & seen, "no row of the earlier runs in the new run"
    assert new - seen, "no new row in the new run"
    assert info["operation_counts"].get("delete", 0) > 0


def test_other_arguments_than_the_lake_was_made_with_are_refused(lake):
    root, _, _ = lake
    with pytest.raises(ValueError, match="does not hold what generate_lake writes"):
        append_run(root, 100, lake_records=LAKE_RECORDS, **{**ARGS, "seed": 4})


def test_a_second_increment_with_the_same_arguments_is_refused(lake):
    root, _, _ = lake
    with pytest.raises(FileExistsError):
        append_run(root, 2_000, lake_records=LAKE_RECORDS, **ARGS)
