"""sync_logs_dev: what only this repository needs, never in the users' wheel: the demo lake
generator and the demo (`sync-logs-dev generate|demo`), the dbt runners of the tests and the
benchmark, the test services (a Spark cluster, a Thrift server) and their evidence readers."""
