"""Sync-scoped incremental marts (issue #17) equal a full refresh after every step of a
sequence of loads, on embedded Spark, PostgreSQL and DuckDB.

One schema is built incrementally step after step (`dbt run`); a second schema reads the same
input tables and is rebuilt with `dbt run --full-refresh` at each step. The steps
(tests/dbt/marts_sequence.py): a first build, new runs, a late run, a reloaded run, a retention
prune, an idle build. Each step's marts must equal the full refresh row for row, each build
must have rewritten only the syncs that changed (the sync predicate in its compiled SQL), and
a few facts worked out by hand from the fixture must hold, so that two equally wrong builds
cannot pass."""

import re
import shutil
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlparse

import pytest
from marts_harness import MARTS, SYNC_SCOPED_INTERMEDIATES, Build, install_package
from marts_sequence import DBT_VARS, STEPS

# the package's sync-scoped incremental models (config sync_logs_sync_scoped)
SYNC_SCOPED = {
    "intermediate": SYNC_SCOPED_INTERMEDIATES,
    "marts": ["sync_logs__audience_events", "sync_logs__current_members",
              "sync_logs__field_diffs", "sync_logs__flapping_rows",
              "sync_logs__membership_history", "sync_logs__row_lifecycle",
              "sync_logs__row_operations"],
}
COMPARED = MARTS + SYNC_SCOPED["intermediate"]
# `dbt run` of what COMPARED is built from (incidents and run anomalies are not compared).
# The run error history `int_sync_logs__run_errors` is append-only, and `--full-refresh` does
# not rebuild it: the full schema's history is built first at the step after the first and
# then sees every step that the incremental one sees, so the two hold the same history.
RUN = ["run", "--select", "package:sync_logs", "--exclude", "sync_logs__incidents",
       "sync_logs__run_anomalies"]

# The predicate each step's build must compile into every sync-scoped model: all syncs in the
# first build, then only those with a new, changed or gone run; the run-scoped models write a
# sync's new runs alone when nothing else of the sync changed.
PREDICATES = {
    "first": "1 = 1",
    "new_runs": "sync_id in (101)",
    "late_run": "sync_id in (202)",
    "reloaded": "sync_id in (101)",
    "pruned": "sync_id in (101, 202)",
    "idle": "1 = 0",
}
RUN_SCOPED = {"int_sync_logs__row_runs", "int_sync_logs__error_rows", "sync_logs__field_diffs",
              "int_sync_logs__run_error_classes"}
# run-scoped models that read the earlier runs of the syncs whose new runs they write
READS_WHOLE_SYNCS = {"sync_logs__field_diffs"}
# a late run (2001 started before 2002) rewrites its sync: the later runs' op_types may change
RUN_SCOPED_PREDICATES = {
    **PREDICATES,
    "new_runs": "(sync_id = 101 and sync_run_id in (1005, 1006))",
}
# A build of the run-scoped models that wrote runs 1005 and 1006 but died before on-run-end
# recorded them: the next build writes them again, once.
REPLAYED_RUNS = (1005, 1006)
# an extra pattern that matches every message, before any of the seed's
TAXONOMY_CHANGE = {"sync_logs_extra_error_categories": [
    {"pattern": ".", "category": "fixture_any", "priority": 1}]}
PREDICATE = re.compile(
    r"\b1 = [01]\b|\bsync_id in \([0-9, ]+\)|\(sync_id = \d+ and sync_run_id in \([0-9, ]+\)\)")


def run_scoped_predicates(model: str, predicate: str) -> set[str]:
    """The predicates a run-scoped model's SQL holds when it writes what `predicate` keeps: that
    one, and the whole syncs of its runs where the model reads their earlier runs."""
    if model not in READS_WHOLE_SYNCS:
        return {predicate}
    return {predicate, re.sub(r"\(sync_id = (\d+) and sync_run_id in \([0-9, ]+\)\)",
                              r"sync_id in (\1)", predicate)}


@dataclass(repr=False)  # a failure prints the test's arguments: keep them short
class Outcome:
    incremental: dict  # relation -> rows of the incremental schema after the step
    full: dict | None  # relation -> rows of the full refresh of the same input
    predicates: dict  # sync-scoped model -> the sync predicates in its compiled SQL
    state_queries: int  # the build's queries of sync_logs_incremental_state (changed_runs)


def unrecorded_run_statements(engine: str, schema: str) -> list[str]:
    """Removes the run-scoped models' record of REPLAYED_RUNS from sync_logs_incremental_state,
    as if the build that wrote them had died before its on-run-end hook."""
    state = f"{schema}.sync_logs_incremental_state"
    forgotten = (f"model_name like '%:by_run' and sync_run_id in "
                 f"({', '.join(map(str, REPLAYED_RUNS))})")
    if engine != "spark":
        return [f"delete from {state} where {forgotten}"]
    return rewrite_spark_state(state, "sync_id, sync_run_id, fingerprint, model_name", forgotten)


def orphan_spark_sync(build: Build, sync_id: int) -> None:
    """As an insert killed after moving its files and before registering their partition leaves
    them: the run-scoped models' rows of `sync_id` in a folder the metastore does not know, and
    none of the sync's runs recorded."""
    for model in sorted(RUN_SCOPED):
        table = f"{build.schema}.{model}"
        location = build.spark.sql(f"describe formatted {table}") \
            .where("col_name = 'Location'").first()["data_type"]
        folder = Path(urlparse(location).path) / f"sync_id={sync_id}"
        kept = build.work / f"orphaned_{model}"
        shutil.copytree(folder, kept)
        build.execute(f"alter table {table} drop partition (sync_id = {sync_id})")
        shutil.copytree(kept, folder)
    build.execute(*rewrite_spark_state(
        f"{build.schema}.sync_logs_incremental_state",
        "sync_id, sync_run_id, fingerprint, model_name",
        f"model_name like '%:by_run' and sync_id = {sync_id}"))


def rewrite_spark_state(state: str, columns: str, dropped: str = "false") -> list[str]:
    """Parquet cannot update or delete: the state's rows but those `dropped`, as `columns`
    select them, through a copy."""
    return [
        f"create table {state}_copy using parquet as select {columns} from {state} "
        f"where not ({dropped})",
        f"truncate table {state}",
        f"insert into table {state} partition (model_name) select * from {state}_copy",
        f"drop table {state}_copy",
    ]


def older_release_statements(engine: str, schema: str) -> list[str]:
    """The run-scoped models as the previous release left them: recorded under their bare alias
    and, on Spark, partitioned by sync_id alone."""
    state = f"{schema}.sync_logs_incremental_state"
    if engine != "spark":
        return [f"update {state} set model_name = replace(model_name, ':by_run', '')"]
    statements = []
    for model in sorted(RUN_SCOPED):
        statements += [
            f"create table {schema}.{model}_old using parquet partitioned by (sync_id) "
            f"as select * from {schema}.{model}",
            f"drop table {schema}.{model}",
            f"alter table {schema}.{model}_old rename to {schema}.{model}",
        ]
    columns = "sync_id, sync_run_id, fingerprint, replace(model_name, ':by_run', '') as model_name"
    return [*statements, *rewrite_spark_state(state, columns)]


def run_incremental(build: Build) -> int:
    """`dbt run` of RUN; returns how many times it asked which runs changed (`changed_runs`)."""
    log = build.work / "logs" / "dbt.log"
    start = log.stat().st_size if log.exists() else 0
    build.dbt(*RUN)
    with log.open(encoding="utf-8") as text:
        text.seek(start)
        return text.read().count("with recorded_runs as (")


def compiled_predicates(build: Build) -> dict:
    compiled = build.work / "dbt" / "compiled" / "sync_logs" / "models"
    return {
        model: set(PREDICATE.findall((compiled / folder / f"{model}.sql").read_text()))
        for folder, models in SYNC_SCOPED.items() for model in models
    }


def rebuild(build: Build, full_rows: dict) -> Outcome:
    """The Outcome of one more `dbt run` of RUN after a change made by hand, against the full
    refresh `full_rows` of the same input."""
    shutil.rmtree(build.work / "dbt" / "compiled", ignore_errors=True)
    return Outcome(
        state_queries=run_incremental(build),
        incremental={relation: build.rows(relation) for relation in COMPARED},
        full=full_rows,
        predicates=compiled_predicates(build),
    )


@pytest.fixture(scope="module", params=["duckdb", "postgres", "spark"])
def sequence(request, tmp_path_factory):
    """Runs every step on one engine; yields each step's Outcome by step name."""
    engine = request.param
    spark = request.getfixturevalue("spark") if engine == "spark" else None
    incremental = Build(engine, tmp_path_factory.mktemp(f"incremental_{engine}"), spark=spark)
    full = Build(engine, tmp_path_factory.mktemp(f"full_{engine}"), spark=spark)
    # the full refresh reads the input tables of the incremental schema (one DuckDB file)
    full.duckdb_path = incremental.duckdb_path
    full.env["SYNC_LOGS_DUCKDB_PATH"] = str(incremental.duckdb_path)
    incremental.dbt_vars.update(DBT_VARS)
    full.dbt_vars.update(DBT_VARS, sync_logs_tables_schema=incremental.schema)
    outcomes = {}
    try:
        install_package()
        incremental.dbt("seed", "--select", "tag:fixture_tables", "package:sync_logs")
        full.dbt("seed", "--select", "package:sync_logs")
        for number, step in enumerate(STEPS):
            incremental.execute(*step.statements(engine, incremental.schema, first=number == 0))
            shutil.rmtree(incremental.work / "dbt" / "compiled", ignore_errors=True)
            state_queries = run_incremental(incremental)
            if step.name == "first":
                # the first build is a full build itself (PREDICATES)
                full_rows = None
            elif step.name == "idle":
                # the same input as the step before: its full refresh stands
                full_rows = outcomes["pruned"].full
            else:
                full.dbt(*RUN, "--full-refresh")
                full_rows = {relation: full.rows(relation) for relation in COMPARED}
            outcomes[step.name] = Outcome(
                incremental={relation: incremental.rows(relation) for relation in COMPARED},
                full=full_rows,
                predicates=compiled_predicates(incremental),
                state_queries=state_queries,
            )
            if step.name == "new_runs":
                incremental.execute(*unrecorded_run_statements(engine, incremental.schema))
                outcomes["replayed"] = rebuild(incremental, full_rows)
                if engine == "spark":
                    orphan_spark_sync(incremental, 101)
                    outcomes["orphaned"] = rebuild(incremental, full_rows)
        incremental.execute(*older_release_statements(engine, incremental.schema))
        outcomes["upgraded"] = rebuild(incremental, outcomes["idle"].full)
        # the error taxonomy changes: the error rows carry it, so every sync is rewritten
        incremental.dbt_vars.update(TAXONOMY_CHANGE)
        full.dbt_vars.update(TAXONOMY_CHANGE)
        full.dbt(*RUN, "--full-refresh")
        outcomes["retaxonomied"] = rebuild(
            incremental, {relation: full.rows(relation) for relation in COMPARED})
        yield outcomes
    finally:
        incremental.drop()
        full.drop()


def pick(rows, *columns, **where):
    return sorted(tuple(row[c] for c in columns) for row in rows
                  if all(row[k] == v for k, v in where.items()))


@pytest.mark.parametrize("step", [step.name for step in STEPS[1:]])
def test_incremental_marts_equal_a_full_refresh(sequence, step):
    outcome = sequence[step]
    differing = [r for r in COMPARED if outcome.incremental[r] != outcome.full[r]]
    assert differing == [], f"after step {step}: {differing} differ from a full refresh"
    assert all(outcome.full[r] for r in ("sync_logs__audience_events",
                                         "sync_logs__row_operations", "int_sync_logs__row_runs"))


def test_each_build_rewrote_only_the_changed_syncs(sequence):
    for step, expected in PREDICATES.items():
        predicates = sequence[step].predicates
        assert predicates == {
            model: run_scoped_predicates(model, RUN_SCOPED_PREDICATES[step])
            if model in RUN_SCOPED else {expected}
            for model in predicates
        }, f"step {step}"


def test_each_model_asked_once_what_changed(sequence):
    # the model's SQL asks; its pre-hook reads the answer from that SQL; a model built in full
    # (all in the first build, the run-scoped ones after the upgrade) has nothing to ask
    models = sum(len(names) for names in SYNC_SCOPED.values())
    expected = {"first": 0, "upgraded": models - len(RUN_SCOPED)}
    queries = {step: outcome.state_queries for step, outcome in sequence.items()}
    assert queries == {step: expected.get(step, models) for step in queries}


def test_unrecorded_new_runs_are_written_once_more_and_only_once(sequence, request):
    outcome = sequence["replayed"]
    differing = [r for r in COMPARED if outcome.incremental[r] != outcome.full[r]]
    assert differing == [], f"{differing} differ from a full refresh"
    # Spark parquet cannot delete a run's rows alone: the sync that has them is rewritten
    replayed = f"(sync_id = 101 and sync_run_id in ({', '.join(map(str, REPLAYED_RUNS))}))"
    if request.node.callspec.params["sequence"] == "spark":
        replayed = "sync_id in (101)"
        # and so when the rows are in a partition that a killed insert did not register
        orphaned = sequence["orphaned"]
        differing = [r for r in COMPARED if orphaned.incremental[r] != orphaned.full[r]]
        assert differing == [], f"{differing} differ from a full refresh after the orphaning"
        assert orphaned.predicates == {
            model: run_scoped_predicates(model, replayed) if model in RUN_SCOPED else {"1 = 0"}
            for model in orphaned.predicates
        }
    assert outcome.predicates == {
        model: run_scoped_predicates(model, replayed) if model in RUN_SCOPED else {"1 = 0"}
        for model in outcome.predicates
    }


def test_run_scoped_models_of_an_older_release_are_rebuilt_in_full(sequence):
    outcome = sequence["upgraded"]
    differing = [r for r in COMPARED if outcome.incremental[r] != outcome.full[r]]
    assert differing == [], f"{differing} differ from a full refresh"
    assert outcome.predicates == {
        model: {"1 = 1" if model in RUN_SCOPED else "1 = 0"} for model in outcome.predicates
    }


def test_a_changed_error_taxonomy_rewrites_every_sync(sequence):
    outcome = sequence["retaxonomied"]
    differing = [r for r in COMPARED if outcome.incremental[r] != outcome.full[r]]
    assert differing == [], f"{differing} differ from a full refresh"
    assert outcome.predicates == {
        model: {"sync_id in (101, 202)"} for model in outcome.predicates
    }
    categories = {row["error_category"] for row in outcome.incremental["int_sync_logs__error_rows"]}
    assert categories == {"fixture_any"}


def test_first_build(sequence):
    # without run 2001, c3's only success is its removal in 2002: no event
    events = sequence["first"].incremental["sync_logs__audience_events"]
    assert pick(events, "row_id", "event_number", "event_type", "sync_run_id", sync_id=202) == [
        ("c1", 1, "entered", 2003),
        ("c2", 1, "entered", 2002),
    ]


def test_new_runs_rewrite_their_sync_and_keep_the_other(sequence):
    rows = sequence["new_runs"].incremental
    # u4 left in 1006 (its removal failed in 1005), u7 entered in 1006; sync 202's rows kept
    assert pick(rows["sync_logs__current_members"], "sync_id", "row_id") == [
        (101, "u2"), (101, "u3"), (101, "u7"), (202, "c1"), (202, "c2"),
    ]
    assert pick(rows["sync_logs__audience_events"], "event_number", "event_type", "sync_run_id",
                sync_id=101, row_id="u4") == [(1, "entered", 1001), (2, "exited", 1006)]


def test_late_run_takes_its_place_in_run_order(sequence):
    events = sequence["late_run"].incremental["sync_logs__audience_events"]
    # 2001 (Oct 2) arrived after 2002 (Oct 3) was built: c3 entered in 2001, left in 2002
    assert pick(events, "event_number", "event_type", "sync_run_id", sync_id=202,
                row_id="c3") == [(1, "entered", 2001), (2, "exited", 2002)]
    # sync 101's events are those of the step before: u1 4, u2 1, u3 1, u4 2, u7 1
    assert len([e for e in events if e["sync_id"] == 101]) == 9


def test_reloaded_run_replaces_its_rows(sequence):
    rows = sequence["reloaded"].incremental
    # u1's re-add in 1004 is gone: one membership, from 1001 to its removal in 1003
    assert pick(rows["sync_logs__membership_history"], "entered_sync_run_id",
                "exited_sync_run_id", sync_id=101, row_id="u1") == [(1001, 1003)]
    # u2's change in 1004 now carries plan "enterprise" (failed): it is still compared
    assert pick(rows["sync_logs__field_diffs"], "field_name", "old_value", "new_value",
                sync_id=101, row_id="u2", sync_run_id=1004) == [
        ("email", "u2-at-x.com", "u2@x.com"),
        ("plan", "free", "enterprise"),
    ]
    assert pick(rows["sync_logs__current_members"], "sync_id", "row_id") == [
        (101, "u2"), (101, "u3"), (101, "u7"), (101, "u8"), (202, "c1"), (202, "c2"),
    ]


def test_pruned_runs_leave_the_marts(sequence):
    rows = sequence["pruned"].incremental
    # the attempts of runs 1001 (L01-L04) and 2003 (L22, L23) are gone
    assert pick(rows["sync_logs__row_operations"], "sync_id", "row_id", "num_attempts") == [
        (101, "u1", 3), (101, "u2", 3), (101, "u3", 4), (101, "u4", 2), (101, "u5", 2),
        (101, "u6", 1), (101, "u7", 2), (101, "u8", 1),
        (202, "c1", 2), (202, "c2", 2), (202, "c3", 2),
    ]
    # memberships start at the first success left; u4's only add was in 1001
    assert pick(rows["sync_logs__membership_history"], "sync_id", "row_id",
                "entered_sync_run_id", "exited_sync_run_id") == [
        (101, "u1", 1002, 1003), (101, "u2", 1002, None), (101, "u3", 1002, None),
        (101, "u7", 1006, None), (101, "u8", 1004, None),
        (202, "c1", 2001, None), (202, "c2", 2002, None), (202, "c3", 2001, 2002),
    ]


def test_idle_build_changes_nothing(sequence):
    assert sequence["idle"].incremental == sequence["pruned"].incremental
