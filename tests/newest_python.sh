#!/usr/bin/env bash
# The hand-made lake on the newest supported Python (3.13), as a user installs the package:
# a fresh venv (uv), the package built from this checkout and installed (not editable) with
# the base dependencies only and constraints.txt, then one canonical test module on it. The
# test harness's own modules (python/dev, sync_logs_dev) go in beside it, without their
# dependencies (the harness needs none that the package lacks).
# Run by `make test` (tests/consumer/test_newest_python.py) and `make test-newest-python`;
# prints its wall time. Run from anywhere: it works in the checkout.
#
#   NEWEST_PYTHON  the interpreter (default: python3.13 on PATH, else the newest 3.13 under
#                  `pyenv root`/versions, else ~/.pyenv/versions/3.13.*)
#   UV             the uv binary (default .venv/bin/uv, from python/dev; else uv on PATH)
#   NEWEST_PYTHON_TESTS  the pytest arguments (default tests/dbt/test_canonical_handmade.py)
set -euo pipefail
cd "$(dirname "$0")/.."
started=$(date +%s)
VERSION=3.13

# The first candidate that runs and is $VERSION (a pyenv shim on PATH may exist and still fail).
find_python() {
  local candidates=()
  if [[ -n "${NEWEST_PYTHON:-}" ]]; then
    candidates=("$NEWEST_PYTHON")
  else
    if command -v "python$VERSION" >/dev/null 2>&1; then candidates+=("$(command -v "python$VERSION")"); fi
    local roots=() root
    if command -v pyenv >/dev/null 2>&1; then roots+=("$(pyenv root)"); fi
    roots+=("${PYENV_ROOT:-$HOME/.pyenv}")
    for root in "${roots[@]}"; do
      candidates+=($(ls -d "$root/versions/$VERSION".*/bin/python 2>/dev/null | sort -rV || true))
    done
  fi
  local candidate
  for candidate in "${candidates[@]}"; do
    if [[ "$("$candidate" -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null)" == "$VERSION" ]]; then
      echo "$candidate"
      return
    fi
  done
}

PYTHON=$(find_python)
if [[ -z "$PYTHON" ]]; then
  echo "newest_python.sh: error: no working Python $VERSION found (${NEWEST_PYTHON:-not python$VERSION" \
       "on PATH, not under \`pyenv root\`/versions/$VERSION.*}): install it (pyenv install" \
       "$VERSION) or set NEWEST_PYTHON to its interpreter" >&2
  exit 1
fi
UV=${UV:-}
if [[ -z "$UV" ]]; then
  if [[ -x .venv/bin/uv ]]; then UV=.venv/bin/uv; else UV=$(command -v uv || true); fi
fi
if [[ -z "$UV" ]]; then
  echo "newest_python.sh: error: uv not found: \`make venv\` installs it (python/dev), or set UV" >&2
  exit 1
fi

WORK=target/newest_python
VENV=$WORK/venv
rm -rf "$VENV" "$WORK/src"
mkdir -p "$WORK/src"
# Built from a copy of what the package is made of, so that nothing is built into the checkout
# (setup.py reads the version from dbt_project.yml).
tar -cf - --exclude='*.egg-info' --exclude=__pycache__ \
    pyproject.toml setup.py MANIFEST.in dbt_project.yml README.md python \
  | tar -xf - -C "$WORK/src"
"$UV" venv --quiet --python "$PYTHON" "$VENV"
# constraints.txt resolves on 3.11 and 3.13 alike (see its header).
"$UV" pip install --quiet --python "$VENV/bin/python" -c constraints.txt "$WORK/src[session]" pytest
"$UV" pip install --quiet --python "$VENV/bin/python" --no-deps "$WORK/src/python/dev"
"$VENV/bin/python" - <<'EOF'
import sys
import sync_logs
import sync_logs_dev
# The installed packages, not this checkout's python/ folder.
assert "site-packages" in sync_logs.__file__, sync_logs.__file__
assert "site-packages" in sync_logs_dev.__file__, sync_logs_dev.__file__
print(f"newest_python.sh: Python {sys.version.split()[0]}, sync_logs from {sync_logs.__file__}")
EOF
installed=$(date +%s)
read -r -a TESTS <<< "${NEWEST_PYTHON_TESTS:-tests/dbt/test_canonical_handmade.py}"
"$VENV/bin/python" -m pytest -p no:cacheprovider --basetemp "$WORK/pytest" "${TESTS[@]}"
finished=$(date +%s)
echo "newest_python.sh: venv and install $((installed - started)) s, tests" \
     "$((finished - installed)) s, wall $((finished - started)) s"
