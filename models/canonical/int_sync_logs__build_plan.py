"""int_sync_logs__build_plan: the build plan, one row per run committed or written or cleared by
this build (`sync_logs.canonical.plan`).

The committed runs come from `sync_runs`, and the runs whose rows the changelog holds from
`sync_changelog`'s partitions, both read by name (identifiers from the
`committed_runs_identifier` and `changelog_identifier` configs, same catalog and schema) rather
than through `ref`, which would be a cycle. When neither the stored plan nor the new one holds
an action, the model returns the stored table, and nothing is written.
"""

from sync_logs.canonical import plan, require_library


def model(dbt, session):
    require_library(dbt.config.get("sync_logs_library"))
    this = str(dbt.this)
    previous = plan.read_stored(session, this)
    inputs, state = plan.read_inputs(
        session,
        dbt.ref("int_sync_logs__run_manifest"),
        sync_runs=plan.sibling_relation(this, dbt.config.get("committed_runs_identifier")),
        changelog=plan.sibling_relation(this, dbt.config.get("changelog_identifier")),
        previous=previous,
    )
    return plan.current_plan_from(inputs, session, previous, state)
