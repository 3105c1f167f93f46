"""The canonical rules of sync_logs: raw run outputs in a lake -> the canonical tables.

Pure DataFrame-in, DataFrame-out functions, one module per concern; the dbt Python models of
`models/canonical/` only wire their refs and config to one call each.

- `lake`: the lake listing (every file, classified)
- `inspection`: the one parquet inspector (record batches, fact files)
- `manifest`: the run manifest, the lake's inventory by folder (what changed, run versions)
- `metadata`: metadata.json (keys and spellings, validity)
- `plan`: the build plan (committed runs; runs to load, clear, recompute)
- `records`: record reading; `payloads`: the payload rules
- `changelog`: status, op_type, folding, payload_changed
- `snapshot`: row states; `runs`: run counters; `objects`: metadata objects
- `ordering`, `values`: the orders and safe conversions the others share
- `parallelism`: the shuffle partitions the session asks for
- `upgrade`: tables an older release built, read in the current layout
"""

from sync_logs import __version__


def require_library(wanted: str | None) -> None:
    """Fail unless the installed library is the version the dbt package needs.

    `wanted` is the models' `sync_logs_library` config: the package's version (its
    dbt_project.yml `version:`)."""
    wanted = (wanted or "").strip()
    if wanted == __version__:
        return
    raise RuntimeError(
        f"the sync_logs dbt package needs the Python library sync-logs {wanted or '(unset)'}, "
        f"but sync-logs {__version__} is installed where the model runs. Install the same "
        f"version: `pip install 'sync-logs=={wanted}'` beside dbt (embedded Spark, Spark "
        "cluster); on Databricks, the wheel of that version through the models' "
        "`additional_libs` config or as a cluster library (docs/databricks.md)."
    )
