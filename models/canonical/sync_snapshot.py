"""sync_snapshot: the latest state of every row per sync, removed rows left out
(`sync_logs.canonical.snapshot`; see the yml).

Incremental (insert_overwrite by sync_id): a build writes the syncs it touches; the post-hook
`sync_logs.clear_emptied_syncs` drops the partition of a touched sync whose rows were all
removed, which an overwrite with no rows cannot empty.
"""

from sync_logs.canonical import require_library, snapshot


def model(dbt, session):
    require_library(dbt.config.get("sync_logs_library"))
    plan = dbt.ref("int_sync_logs__runs_to_rewrite") if dbt.is_incremental else None
    return snapshot.sync_snapshot(dbt.ref("int_sync_logs__snapshot"), plan)
