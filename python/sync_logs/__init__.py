"""sync_logs: what users install with the dbt package: the canonical rules its Python models
call (`sync_logs.canonical`), the embedded SparkSession settings (`sync_logs.spark`) and the
`sync-logs` CLI (export-csv, report, notify). The repository's demo, lake generator and test
tools are the separate development package `sync_logs_dev` (python/dev)."""

from importlib.metadata import PackageNotFoundError, version

# The installed library's version, written once: the dbt package's dbt_project.yml `version:`
# (the build reads it from there); the canonical models check it (`sync_logs.canonical`).
try:
    __version__ = version("sync-logs")
except PackageNotFoundError:  # imported from a folder on the path, not installed
    __version__ = "unknown"
