"""int_sync_logs__committed_runs: the runs whose load `sync_runs` commits
(`sync_logs.canonical.plan`).

`sync_runs` is read by name (identifier from the `committed_runs_identifier` config, same
catalog and schema) rather than through `ref`, which would be a cycle.
"""

from sync_logs.canonical import plan, require_library


def model(dbt, session):
    require_library(dbt.config.get("sync_logs_library"))
    relation = plan.sibling_relation(str(dbt.this), dbt.config.get("committed_runs_identifier"))
    return plan.committed_runs(session, relation)
