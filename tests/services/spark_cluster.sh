#!/usr/bin/env bash
# spark_cluster.sh start|stop|status|env [--state-dir DIR] [options]: see `python -m sync_logs_dev.services cluster -h`.
# Binds 127.0.0.1 only; state, pid files and logs under target/services/spark_cluster/ by default.
# `eval "$(tests/services/spark_cluster.sh env)"` exports what `dbt --target cluster` needs.
set -euo pipefail
cd "$(dirname "$0")/../.."
exec .venv/bin/python -m sync_logs_dev.services cluster "$@"
