"""sync_logs: tools around the dbt package (demo lake generator, demo summary, benchmarks)."""
