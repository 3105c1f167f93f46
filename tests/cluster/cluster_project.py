"""The project the cluster build runs: for now a small stand-in (a Python model reading a
parquet lake through var raw_root, and a SQL model over it)."""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq


@dataclass
class Project:
    dir: Path
    lake: Path
    dbt_vars: dict


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip())


def build_project(root: Path, lake: Path) -> Project:
    for part in range(6):
        ids = list(range(part * 1000, part * 1000 + 1000))
        table = pa.table({"n": ids, "bucket": [n % 7 for n in ids]})
        (lake / "numbers").mkdir(parents=True, exist_ok=True)
        pq.write_table(table, lake / "numbers" / f"part-{part}.parquet")
    write(root / "dbt_project.yml", """
        name: cluster_smoke
        version: "1.0.0"
        config-version: 2
        profile: sync_logs
        models:
          cluster_smoke:
            +file_format: parquet
        """)
    write(root / "models/numbers.py", """
        from pyspark.sql import functions as F


        def model(dbt, session):
            dbt.config(materialized="table")
            root = dbt.config.get("raw_root")
            return session.read.parquet(root + "/numbers").repartition(8).select(
                "n", "bucket", (F.col("n") * F.col("n")).alias("square"))
        """)
    write(root / "models/schema.yml", """
        models:
          - name: numbers
            config:
              raw_root: "{{ var('raw_root') }}"
        """)
    write(root / "models/bucket_totals.sql", """
        {{ config(materialized="table") }}
        select bucket, count(*) as numbers, sum(square) as total
        from {{ ref('numbers') }}
        group by bucket
        """)
    return Project(root, lake, {"raw_root": lake.resolve().as_uri()})


def expected_tables(project: Project) -> dict[str, list[tuple]]:
    numbers = list(range(6000))
    totals = {}
    for n in numbers:
        count, total = totals.get(n % 7, (0, 0))
        totals[n % 7] = (count + 1, total + n * n)
    return {
        "numbers": sorted((n, n % 7, n * n) for n in numbers),
        "bucket_totals": sorted((b, c, t) for b, (c, t) in totals.items()),
    }


def read_table(folder: Path) -> list[tuple]:
    table = pq.read_table(folder)
    return sorted(zip(*(table.column(i).to_pylist() for i in range(table.num_columns)),
                      strict=True))
