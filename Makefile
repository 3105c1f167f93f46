# The two commands of the README: `make demo` and `make test`. Each creates .venv if missing.
SHELL := /bin/bash
PYTHON_BIN ?= python3.11
VENV := .venv
PY := $(VENV)/bin/python
DEPS_STAMP := $(VENV)/.deps-installed

.PHONY: demo check test test-newest-python lint bench venv clean dist

venv: $(DEPS_STAMP)

$(DEPS_STAMP): pyproject.toml python/dev/pyproject.toml constraints.txt
	test -x $(PY) || $(PYTHON_BIN) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -c constraints.txt -e . -e python/dev
	touch $@

# Generate a demo lake; on the embedded Spark, build the canonical tables and the marts the summary
# and report read, with their data tests (not the unit or regression tests); print a summary.
demo: $(DEPS_STAMP)
	$(VENV)/bin/sync-logs-dev demo

# The inner loop, after each change (a few minutes): lint, the library's unit tests on small
# hand-written DataFrames (tests/python) and one canonical build of the hand-made lake with its
# expected rows (tests/dbt/test_canonical_handmade.py).
check: lint
	$(PY) -m pytest -n 2 --dist loadfile tests/python tests/dbt/test_canonical_handmade.py

# The whole test suite: pytest (adapter, generator, Python models) and dbt builds on embedded Spark,
# PostgreSQL (a throwaway server on 127.0.0.1, started here) and DuckDB; two pytest-xdist workers,
# each with its own SparkSession, a whole test module at a time (the modules that share
# the consumer project's build together: tests/conftest.py). One of them builds the hand-made
# lake on the newest supported Python (3.13), the package installed as users install it
# (tests/consumer/test_newest_python.py runs tests/newest_python.sh).
test: $(DEPS_STAMP)
	bash tests/services/postgres.sh start
	bash tests/services/chromium.sh
	$(PY) -m pytest -n 2 --dist loadfile tests

# A fresh Python 3.13 venv (uv), the package installed non-editable with its base dependencies
# and constraints.txt, and tests/dbt/test_canonical_handmade.py on it (`make test` runs it too).
test-newest-python: $(DEPS_STAMP)
	bash tests/newest_python.sh

# Lint: ruff on Python; sqlfluff (dbt templater, embedded `local` target) on models, macros, analyses.
lint: $(DEPS_STAMP)
	$(VENV)/bin/ruff check python tests bench models
	$(PY) -c 'from pathlib import Path; from sync_logs_dev.dbt_invoke import example_profiles_dir; example_profiles_dir(Path("target").resolve())'
	$(VENV)/bin/sqlfluff lint --processes 1 models macros analyses

# Scale benchmark (issues #6, #16): lakes of BENCH_RECORDS records; full and incremental builds and
# the marts on embedded Spark against two references, plain DuckDB SQL and a plain PySpark job.
# Writes bench/results/scale_<N>.json and bench/results/scale.md. Long: run it on a quiet machine.
BENCH_RECORDS ?= 1000000 3000000 10000000
bench: $(DEPS_STAMP)
	$(PY) bench/scale.py --records $(BENCH_RECORDS)

# The wheel users install, into $(DIST): its version is dbt_project.yml's. On Databricks, the
# canonical models get the library from this wheel on a Volume (docs/databricks.md). build/ goes
# first: setuptools would put the files an older build left there into the wheel.
DIST ?= dist
dist:
	test -x $(PY) || $(PYTHON_BIN) -m venv $(VENV)
	rm -rf build $(DIST)/sync_logs-*.whl
	$(PY) -m pip wheel --quiet --no-deps . -w $(DIST)

clean:
	rm -rf target logs dbt_packages build dist
