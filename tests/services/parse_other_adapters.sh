#!/usr/bin/env bash
# `dbt parse` of this package for the warehouses CI cannot run: Snowflake, BigQuery and
# Redshift (in a throwaway virtualenv pinned by other_adapters_constraints.txt, same dbt-core
# as the project) and Databricks (from the project's .venv). Every source mode that the
# adapter supports is parsed with dummy credentials: parsing renders every model and macro,
# so a missing dispatch implementation or a compile-time error fails here. No connection is
# opened.
#
#   tests/services/parse_other_adapters.sh              all four adapters
#   tests/services/parse_other_adapters.sh snowflake    one of them
#
# Environment: SYNC_LOGS_ADAPTERS_VENV (default /tmp/adapters-venv), PYTHON_BIN (python3.11).
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT="$PWD"
VENV="${SYNC_LOGS_ADAPTERS_VENV:-/tmp/adapters-venv}"
PYTHON_BIN="${PYTHON_BIN:-python3.11}"
PINS="$ROOT/tests/services/other_adapters_constraints.txt"
ADAPTERS=("${@:-snowflake bigquery redshift databricks}")
read -r -a ADAPTERS <<<"${ADAPTERS[*]}"

WORK="$(mktemp -d /tmp/sync_logs_parse.XXXXXX)"
trap 'rm -rf "$WORK"' EXIT

cat >"$WORK/profiles.yml" <<'YAML'
sync_logs:
  target: snowflake
  outputs:
    snowflake:
      type: snowflake
      account: dummy-account
      user: dummy
      password: dummy
      role: dummy
      database: analytics
      warehouse: dummy
      schema: sync_logs
      threads: 1
    bigquery:
      type: bigquery
      method: oauth
      project: dummy-project
      dataset: sync_logs
      threads: 1
    redshift:
      type: redshift
      host: localhost
      port: 5439
      user: dummy
      password: dummy
      dbname: analytics
      schema: sync_logs
      threads: 1
    databricks:
      type: databricks
      host: example.cloud.databricks.com
      http_path: /sql/1.0/warehouses/0000000000000000
      token: dapi-dummy
      catalog: main
      schema: sync_logs
      threads: 1
YAML

ensure_venv() {
  if [ ! -x "$VENV/bin/dbt" ] || ! "$VENV/bin/python" -c "import dbt.adapters.snowflake, dbt.adapters.bigquery, dbt.adapters.redshift" 2>/dev/null; then
    "$PYTHON_BIN" -m venv "$VENV"
    "$VENV/bin/pip" install -q --upgrade pip
    "$VENV/bin/pip" install -q -c "$PINS" dbt-core dbt-snowflake dbt-bigquery dbt-redshift
  fi
}

failed=0
for adapter in "${ADAPTERS[@]}"; do
  if [ "$adapter" = databricks ]; then
    dbt="$ROOT/.venv/bin/dbt"
    modes="package tables hightouch census"
  else
    ensure_venv
    dbt="$VENV/bin/dbt"
    modes="tables hightouch census"
  fi
  for mode in $modes; do
    start=$(date +%s)
    if out=$("$dbt" parse --project-dir "$ROOT" --profiles-dir "$WORK" --target "$adapter" \
        --target-path "$WORK/target-$adapter-$mode" --log-path "$WORK/logs" \
        --vars "{sync_logs_source: $mode}" --no-partial-parse 2>&1); then
      echo "parse ok: $adapter, sync_logs_source=$mode ($(( $(date +%s) - start ))s)"
    else
      echo "PARSE FAILED: $adapter, sync_logs_source=$mode"
      echo "$out" | tail -15
      failed=1
    fi
  done
done
exit $failed
