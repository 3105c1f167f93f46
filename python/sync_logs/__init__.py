"""sync_logs: the canonical rules (`sync_logs.canonical`) of the dbt package, its adapter
plugin's companion tools, and the demo lake generator, report and benchmarks."""

# The library version; the dbt package names the version it needs (var `sync_logs_library`).
__version__ = "0.2.0"
