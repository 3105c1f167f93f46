#!/usr/bin/env bash
# Headless Chromium from Debian for the docs-site test (tests/consumer/test_docs_site.py).
# Installs the `chromium` package when /usr/bin/chromium is missing; no browser downloads.
#   tests/services/chromium.sh          install if missing, print the version
#   tests/services/chromium.sh path     print the binary's path (fails if missing)
set -euo pipefail

BIN="${SYNC_LOGS_CHROMIUM:-/usr/bin/chromium}"

case "${1:-install}" in
  install)
    if [ ! -x "$BIN" ]; then
      if [ "$(id -u)" -ne 0 ]; then
        echo "chromium is missing and installing it needs root: apt-get install chromium" >&2
        exit 1
      fi
      export DEBIAN_FRONTEND=noninteractive
      apt-get update -qq
      apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core >/dev/null
    fi
    "$BIN" --version
    ;;
  path)
    test -x "$BIN" && echo "$BIN"
    ;;
  *)
    echo "usage: $0 [install|path]" >&2
    exit 2
    ;;
esac
