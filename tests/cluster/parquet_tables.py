"""The rows of a warehouse's parquet tables, to compare two builds of the same lake."""

from __future__ import annotations

import datetime as dt
import decimal
from pathlib import Path

import pyarrow.dataset as ds

# Set from the clock when a build writes them: equal only by accident.
BUILD_TIME_COLUMNS = {"logged_at", "loaded_at", "inspected_at", "manifest_updated_at",
                      "manifest_version", "listed_at", "manifest_listed_at",
                      "inputs_fingerprint", "stamped_at"}


def normalise(value):
    if isinstance(value, dt.datetime):
        return value.replace(tzinfo=None).isoformat()
    if isinstance(value, decimal.Decimal | float):
        return round(float(value), 9)
    if isinstance(value, list | tuple):
        return tuple(normalise(v) for v in value)
    if isinstance(value, dict):
        return tuple(sorted((k, normalise(v)) for k, v in value.items()))
    return value


def read_table(schema_dir: Path, table: str) -> tuple[list[str], list[tuple]]:
    """A parquet table folder (hive-partitioned or not), rows sorted, build-time columns out."""
    dataset = ds.dataset(schema_dir / table, format="parquet",
                         partitioning="hive", exclude_invalid_files=True)
    columns = sorted(c for c in dataset.schema.names if c not in BUILD_TIME_COLUMNS)
    data = dataset.to_table(columns=columns).to_pylist()
    rows = sorted((tuple(normalise(row[c]) for c in columns) for row in data), key=repr)
    return columns, rows
