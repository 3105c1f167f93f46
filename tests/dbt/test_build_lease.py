"""The build lease of shared Spark warehouses (macros/build_lease/), on the embedded session:
`dbt run-operation sync_logs.acquire_build_lease` with var sync_logs_build_lease on, against
lease rows that the test writes as other builds would have."""

from __future__ import annotations

import time

import pytest

from sync_logs_dev.dbt_invoke import run_dbt

SCHEMA = "build_lease"
LEASE = f"{SCHEMA}.sync_logs_build_lease"
OTHER = "other-build"


def acquire(work, wait_seconds: float = 0) -> None:
    run_dbt(["run-operation", "sync_logs.acquire_build_lease"], target_dir=work,
            dbt_vars={"sync_logs_build_lease": True, "sync_logs_lock_wait_seconds": wait_seconds},
            env={"SYNC_LOGS_SCHEMA": SCHEMA})


def release(work, lease_id: str) -> None:
    run_dbt(["run-operation", "sync_logs.release_build_lease", "--args",
             f"{{lease_id: {lease_id}}}"], target_dir=work, env={"SYNC_LOGS_SCHEMA": SCHEMA})


def other_lease(spark, acquired_seconds: int, expires_seconds: int) -> None:
    """Only another build's lease row, acquired and expiring these seconds from now."""
    spark.sql(f"drop table if exists {LEASE}")
    spark.sql(f"create database if not exists {SCHEMA}")
    spark.sql(f"""
        create table {LEASE} (holder string, acquired_at timestamp, expires_at timestamp,
                              lease_id string)
        using parquet partitioned by (lease_id)""")
    spark.sql(f"""
        insert into {LEASE} partition (lease_id = '{OTHER}')
        select 'host h1, started at 2026-11-01 00:00:00 UTC, dbt invocation {OTHER}',
               current_timestamp() + make_interval(0, 0, 0, 0, 0, 0, {acquired_seconds}),
               current_timestamp() + make_interval(0, 0, 0, 0, 0, 0, {expires_seconds})""")


def lease_ids(spark) -> list[str]:
    spark.sql(f"refresh table {LEASE}")
    return sorted(row.lease_id for row in spark.table(LEASE).collect())


@pytest.fixture(scope="module")
def work(spark, tmp_path_factory):
    return tmp_path_factory.mktemp("build_lease")


def test_a_held_lease_fails_a_build_that_does_not_wait_naming_the_holder(spark, work, capsys):
    other_lease(spark, -60, 3600)
    capsys.readouterr()
    with pytest.raises(RuntimeError):
        acquire(work)
    output = " ".join(capsys.readouterr().out.split())
    assert ("schema build_lease is in use by another build (host h1, started at 2026-11-01 "
            f"00:00:00 UTC, dbt invocation {OTHER}); gave up at once") in output
    assert lease_ids(spark) == [OTHER], "the loser removes its own row"


def test_an_expired_lease_is_removed_and_the_build_holds_the_schema(spark, work):
    other_lease(spark, -7200, -60)
    acquire(work)
    ours = lease_ids(spark)
    assert len(ours) == 1 and ours != [OTHER]
    release(work, ours[0])
    assert lease_ids(spark) == []


def test_the_earliest_unexpired_lease_wins(spark, work):
    """A build that wrote its row after this one's (a race) loses: this one holds the schema."""
    other_lease(spark, 600, 3600)
    acquire(work)
    assert len(lease_ids(spark)) == 2


def test_a_build_waits_for_a_lease_to_end(spark, work):
    other_lease(spark, -60, 6)
    started = time.monotonic()
    acquire(work, wait_seconds=120)
    assert time.monotonic() - started >= 4
    assert OTHER not in lease_ids(spark) and len(lease_ids(spark)) == 1
