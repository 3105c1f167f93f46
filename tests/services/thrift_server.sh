#!/usr/bin/env bash
# thrift_server.sh start|stop|status|env [--state-dir DIR] [options]: see `python -m sync_logs_dev.services thrift -h`.
# Binds 127.0.0.1 only; state, pid files and logs under target/services/thrift_server/ by default.
# `eval "$(tests/services/thrift_server.sh env)"` exports what `dbt --target thrift` needs.
set -euo pipefail
cd "$(dirname "$0")/../.."
exec .venv/bin/python -m sync_logs_dev.services thrift "$@"
