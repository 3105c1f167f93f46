#!/usr/bin/env bash
# Starts a throwaway PostgreSQL 15 server on loopback for the dbt tests, idempotently:
# installs it with apt when missing, initialises a data folder under /tmp as the `postgres`
# OS user (initdb refuses root), trusts local connections, starts it, and waits for it.
#
#   tests/services/postgres.sh [start|stop|status]      (default: start)
#
# Environment (the tests read the same variables):
#   SYNC_LOGS_PG_HOST      127.0.0.1
#   SYNC_LOGS_PG_PORT      54329
#   SYNC_LOGS_PG_USER      postgres
#   SYNC_LOGS_PG_DATABASE  postgres
#   SYNC_LOGS_PG_DATA      /tmp/sync_logs_pg/data
set -euo pipefail

HOST="${SYNC_LOGS_PG_HOST:-127.0.0.1}"
PORT="${SYNC_LOGS_PG_PORT:-54329}"
DATA="${SYNC_LOGS_PG_DATA:-/tmp/sync_logs_pg/data}"
LOG="$(dirname "$DATA")/server.log"
ACTION="${1:-start}"

find_bin() {
  local name="$1"
  for dir in /usr/lib/postgresql/15/bin /usr/local/pgsql/bin; do
    if [ -x "$dir/$name" ]; then echo "$dir/$name"; return 0; fi
  done
  command -v "$name" 2>/dev/null || return 1
}

as_postgres() {
  if [ "$(id -u)" = "0" ]; then
    su postgres -s /bin/bash -c "$(printf '%q ' "$@")"
  else
    "$@"
  fi
}

install_postgres() {
  if find_bin pg_ctl >/dev/null && find_bin initdb >/dev/null; then return 0; fi
  echo "postgres.sh: installing PostgreSQL 15 with apt" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq postgresql-15 >/dev/null
}

is_ready() {
  local ready
  ready="$(find_bin pg_isready)" || return 1
  "$ready" -h "$HOST" -p "$PORT" -q
}

start() {
  install_postgres
  if is_ready; then echo "postgres.sh: already running on $HOST:$PORT"; return 0; fi
  id postgres >/dev/null 2>&1 || useradd --system --home-dir /var/lib/postgresql --shell /bin/bash postgres
  mkdir -p "$(dirname "$DATA")"
  chown postgres "$(dirname "$DATA")"
  if [ ! -f "$DATA/PG_VERSION" ]; then
    as_postgres "$(find_bin initdb)" -D "$DATA" -U postgres --auth=trust --encoding=UTF8 \
      --locale=C.UTF-8 >/dev/null
  fi
  # A stale pid file from a killed server would stop pg_ctl from starting a new one.
  if [ -f "$DATA/postmaster.pid" ] && ! as_postgres "$(find_bin pg_ctl)" -D "$DATA" status >/dev/null 2>&1; then
    rm -f "$DATA/postmaster.pid"
  fi
  as_postgres "$(find_bin pg_ctl)" -D "$DATA" -l "$LOG" -w -t 60 \
    -o "-h $HOST -p $PORT -k /tmp -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=50" start >/dev/null
  for _ in $(seq 1 60); do
    if is_ready; then echo "postgres.sh: started on $HOST:$PORT (data $DATA)"; return 0; fi
    sleep 1
  done
  echo "postgres.sh: server did not become ready; see $LOG" >&2
  return 1
}

stop() {
  if [ -f "$DATA/PG_VERSION" ]; then
    as_postgres "$(find_bin pg_ctl)" -D "$DATA" -m fast stop || true
  fi
}

case "$ACTION" in
  start) start ;;
  stop) stop ;;
  status) if is_ready; then echo "running on $HOST:$PORT"; else echo "not running"; exit 1; fi ;;
  *) echo "usage: $0 [start|stop|status]" >&2; exit 2 ;;
esac
