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
- `upgrade`: tables an older release built, read in the current layout
"""

from sync_logs import __version__

REQUIREMENT_PREFIX = "sync-logs=="


def require_library(requirement: str | None) -> None:
    """Fail unless the installed library is the version the dbt package names.

    `requirement` is the models' `sync_logs_library` config (`sync-logs==<version>`, set in
    the package's dbt_project.yml)."""
    wanted = (requirement or "").strip()
    if wanted.startswith(REQUIREMENT_PREFIX):
        wanted = wanted[len(REQUIREMENT_PREFIX):]
    if wanted == __version__:
        return
    raise RuntimeError(
        f"the sync_logs dbt package needs the Python library sync-logs {wanted or '(unset)'}, "
        f"but sync-logs {__version__} is installed where the model runs. Install the same "
        f"version: `pip install 'sync-logs=={wanted}'` beside dbt (embedded Spark, Spark "
        "cluster), or on Databricks leave the models' `packages` config as the package sets it "
        "(or point `additional_libs` at a wheel of that version)."
    )
