"""Cost of the payload rules of sync_changelog on embedded Spark, and writes
bench/results/payload_rules.json.

One parquet file of N records (payloads like the demo generator's, ~200 bytes; a given share
hold an `email` field), then, on the records as `sync_changelog` reads them: the time to
write them (parquet, as the model's table) with no rule, with `email` hashed and `phone`
dropped, and with only a size limit. Each case runs `--repeat` times; the best time counts.

    .venv/bin/python bench/payload_rules.py [--records 100000 --share-with-field 0.5]
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import tempfile
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from sync_logs.canonical import payloads as payload_rules
from sync_logs.canonical import records as record_reading
from sync_logs.spark import local_session

PROJECT_DIR = Path(__file__).resolve().parents[1]  # the checkout this benchmark belongs to

RESULTS = PROJECT_DIR / "bench" / "results" / "payload_rules.json"


def write_lake_file(path: Path, records: int, share: float) -> None:
    rng = random.Random(7)
    payloads = []
    for i in range(records):
        fields = {"plan": rng.choice(["free", "pro", "team"]), "seats": rng.randint(1, 50),
                  "score": round(rng.random(), 4), "tags": ["a", "b"], "note": "x" * 60}
        if rng.random() < share:
            fields = {"email": f"user{i}@example.com", "phone": f"555-{i:06d}", **fields}
        payloads.append(json.dumps(fields))
    table = pa.table({
        "identifier": [f"u{i}" for i in range(records)],
        "record_payload": payloads,
        "operation": ["upsert"] * records,
        "status": ["succeeded"] * records,
        "status_message": pa.array([None] * records, pa.string()),
    })
    pq.write_table(table, path)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--records", type=int, default=100_000)
    parser.add_argument("--share-with-field", type=float, default=0.5)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    from pyspark.sql import functions as F

    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        source = tmp / "records.parquet"
        write_lake_file(source, args.records, args.share_with_field)
        spark = local_session(tmp / "warehouse", driver_memory="2g", shuffle_partitions=2)
        raw = spark.read.parquet(str(source))
        records = raw.select(
            F.lit(1).cast("bigint").alias("org_id"), F.lit(10).cast("bigint").alias("sync_id"),
            F.lit(100).cast("bigint").alias("sync_run_id"), F.lit("f").alias("batch_file"),
            F.lit("records_updated").alias("batch_type"), F.lit(0).alias("batch_number"),
            F.monotonically_increasing_id().alias("row_index"), "identifier", "record_payload",
            "operation", "status", "status_message",
            F.lit(None).cast("timestamp").alias("batch_started_at"),
            F.lit(None).cast("timestamp").alias("batch_ended_at"),
        ).withColumn("payload_problem", record_reading.payload_problem(F.col("record_payload"))
        ).withColumn("payload_truncated", F.lit(False)).withColumn(
            "manifest_version", F.lit(1).cast("bigint")).select(*record_reading.RECORD_COLUMNS)
        cases = {
            "no_rule": {"drop": [], "hash": [], "salt": "", "max_bytes": None},
            "hash_email_drop_phone": {"drop": ["phone"], "hash": ["email"], "salt": "s",
                                      "max_bytes": None},
            "max_bytes_150": {"drop": [], "hash": [], "salt": "", "max_bytes": 150},
        }
        seconds = {}
        for name, rules in cases.items():
            times = []
            for attempt in range(args.repeat + 1):
                start = time.perf_counter()
                payload_rules.protect_payloads(records, rules).write.mode("overwrite").parquet(
                    str(tmp / f"out_{name}"))
                if attempt:  # the first run warms up the JVM and the Python workers
                    times.append(time.perf_counter() - start)
            seconds[name] = round(min(times), 2)
            print(name, seconds[name], "s")
        spark.stop()
    result = {
        "records": args.records,
        "share_with_field": args.share_with_field,
        "best_of": args.repeat,
        "seconds": seconds,
        "machine": {"cpus": __import__("os").cpu_count(), "python": platform.python_version()},
        "note": "embedded Spark (local[*]) on a machine shared with other Spark jobs",
    }
    RESULTS.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
