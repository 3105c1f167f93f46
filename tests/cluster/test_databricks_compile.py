"""`--target databricks` without a workspace: what is exercised, precisely.

- `dbt parse` with dbt-databricks: every model (Python and SQL) is enabled, Delta, and the
  Python models use a Databricks submission method.
- `dbt compile` of every node (models and data tests), offline, through
  sync_logs_dev.databricks_offline: dbt-databricks' own compilation, with the single catalog
  lookup a Python model's compiled code needs (`is_incremental()`, `this`) answered from a
  fixed picture of the schema: empty (a first run) and holding every model (an incremental
  run). Nothing else is stubbed: any other query would fail for want of a connection.
- The compiled SQL parses with Spark's SQL parser (Databricks SQL is Spark SQL); the compiled
  Python parses as Python and carries Databricks' relation names.
- The Python models import only the library `sync_logs.canonical`, and each checks it is the
  package's version. By default the job dbt-databricks would submit installs nothing from a
  package index; a project's `additional_libs` (the wheel on a Volume) or `packages` with
  `index_url` (a private index) reach the job as given (docs/databricks.md). `make dist` builds
  that wheel, of dbt_project.yml's version, with no dependency outside its extras.
- The models and the library use only functions and DataFrame methods that exist in Spark 3.5
  (Databricks Runtime 14.3 LTS and later) and in Spark Connect (serverless and shared
  clusters); the library imports nothing outside PySpark, PyArrow and the standard library,
  and touches no JVM-only API (RDDs, SparkContext, _jvm).
"""

from __future__ import annotations

import ast
import json
import os
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pyspark
import pytest
import yaml
from pyspark.sql import DataFrame
from pyspark.sql import functions as F

import sync_logs.canonical
from sync_logs_dev.dbt_subprocess import DbtFailed, run_dbt_subprocess

PROJECT_DIR = Path(__file__).resolve().parents[2]  # the checkout
CANONICAL = PROJECT_DIR / "models" / "canonical"
VERSION = yaml.safe_load((PROJECT_DIR / "dbt_project.yml").read_text())["version"]
LIBRARY = Path(sync_logs.canonical.__file__).parent
OLDEST_SPARK = (3, 5, 0)  # Databricks Runtime 14.3 LTS
# Not available where Databricks runs Python through Spark Connect (serverless, shared access).
JVM_ONLY = {"rdd", "sparkContext", "_jvm", "_jdf", "_jsc", "_jsparkSession", "_sc",
            "input_file_name"}
# Library functions that reach the JVM only where the session has one and lets them: their
# callers fall back to Spark's own sources without it (the lake's Hadoop listing).
JVM_GUARDED = {"hadoop_filesystem", "hadoop_listing"}
# Every data test of the package compiles, not only those a user's build runs by default.
EVERY_TEST = {"sync_logs_all_data_tests": True}


def dbt_databricks(args: list[str], work: Path, catalog: str | None = None):
    if catalog is None:
        try:
            return run_dbt_subprocess(args, target="databricks", work_dir=work,
                                      dbt_vars=EVERY_TEST)
        except DbtFailed as error:
            pytest.fail(str(error), pytrace=False)
    # `compile` through the offline runner, in a subprocess of its own.
    (work / "profiles").mkdir(parents=True, exist_ok=True)
    (work / "profiles" / "profiles.yml").write_text(
        (PROJECT_DIR / "profiles.example.yml").read_text())
    command = [
        sys.executable, "-m", "sync_logs_dev.databricks_offline", "--catalog", catalog,
        "--manifest", str(work / "dbt" / "manifest.json"), "--",
        *args, "--vars", json.dumps(EVERY_TEST),
        "--target", "databricks", "--project-dir", str(PROJECT_DIR),
        "--profiles-dir", str(work / "profiles"), "--target-path", str(work / f"dbt-{catalog}"),
        "--log-path", str(work / "logs"), "--no-introspect", "--no-populate-cache",
    ]
    # No real workspace settings leak in: the profile's placeholders are used.
    env = {k: v for k, v in os.environ.items() if not k.startswith("DATABRICKS_")}
    done = subprocess.run(command, cwd=work, capture_output=True, text=True, timeout=600,
                          env={**env, "SYNC_LOGS_TARGET": "databricks"})
    if done.returncode != 0:
        pytest.fail(f"offline compile ({catalog} catalog) failed:\n"
                    f"{done.stdout[-5000:]}\n{done.stderr[-2000:]}", pytrace=False)
    return work / f"dbt-{catalog}"


@pytest.fixture(scope="module")
def compiled(tmp_path_factory):
    work = tmp_path_factory.mktemp("databricks")
    dbt_databricks(["parse"], work)
    manifest = json.loads((work / "dbt" / "manifest.json").read_text())
    return {
        "manifest": manifest,
        "empty": dbt_databricks(["compile"], work, catalog="empty"),
        "existing": dbt_databricks(["compile"], work, catalog="existing"),
    }


def models(manifest: dict) -> list[dict]:
    return [n for n in manifest["nodes"].values() if n["resource_type"] == "model"]


def compiled_nodes(target_path: Path) -> dict[str, dict]:
    manifest = json.loads((target_path / "manifest.json").read_text())
    results = json.loads((target_path / "run_results.json").read_text())["results"]
    # on-run-end hooks report as operations, not nodes (the prune hook is off by default)
    results = [r for r in results if not r["unique_id"].startswith("operation.")]
    assert results and all(r["status"] == "success" for r in results), [
        (r["unique_id"], r["status"], r["message"]) for r in results if r["status"] != "success"]
    return {r["unique_id"]: manifest["nodes"][r["unique_id"]] for r in results}


def test_parse_enables_every_model_on_databricks(compiled):
    nodes = models(compiled["manifest"])
    python = [n for n in nodes if n["language"] == "python"]
    on_disk = {p.stem for p in CANONICAL.glob("*.py")}
    assert {n["name"] for n in python} == on_disk, "a canonical Python model is disabled"
    assert len(nodes) >= len(python) + 20
    for node in nodes:
        assert node["config"]["enabled"] is True
        assert node["config"]["file_format"] == "delta", node["name"]
    for node in python:
        assert node["config"]["submission_method"] == "all_purpose_cluster", node["name"]


@pytest.mark.parametrize("catalog", ["empty", "existing"])
def test_every_node_compiles_offline(compiled, catalog):
    nodes = compiled_nodes(compiled[catalog])
    all_nodes = {n["unique_id"] for n in compiled["manifest"]["nodes"].values()
                 if n["resource_type"] in ("model", "test", "seed", "analysis")}
    assert set(nodes) == all_nodes
    for node in nodes.values():
        if node["resource_type"] != "seed":
            assert node["compiled"] and node["compiled_code"].strip(), node["unique_id"]


def test_incremental_python_models_see_the_catalog(compiled):
    """is_incremental() is false on an empty schema and true once the model's table exists."""
    for catalog, expected in (("empty", "False"), ("existing", "True")):
        for node in compiled_nodes(compiled[catalog]).values():
            if node.get("language") != "python":
                continue
            incremental = node["config"]["materialized"] == "incremental"
            flag = re.search(r"self\.is_incremental = (\w+)", node["compiled_code"]).group(1)
            assert flag == (expected if incremental else "False"), (node["name"], catalog)


def test_compiled_python_is_python_with_databricks_names(compiled):
    for node in compiled_nodes(compiled["empty"]).values():
        if node.get("language") != "python":
            continue
        ast.parse(node["compiled_code"], filename=node["name"])
        assert f'identifier = "{node["alias"]}"' in node["compiled_code"]
        assert f"`{node['database']}`.`{node['schema']}`." in node["compiled_code"]


@pytest.mark.parametrize("catalog", ["empty", "existing"])
def test_compiled_sql_parses_as_spark_sql(compiled, spark, catalog):
    parser = spark._jsparkSession.sessionState().sqlParser()
    failures, parsed = [], 0
    for node in compiled_nodes(compiled[catalog]).values():
        if node.get("language") != "sql":
            continue
        parsed += 1
        try:
            parser.parsePlan(node["compiled_code"])
        except Exception as error:  # py4j carries the ParseException text
            failures.append(f"{node['unique_id']}: {str(error).splitlines()[0]}")
    assert not failures, "\n".join(failures)
    assert parsed >= 100, f"only {parsed} compiled SQL nodes"


def version_added(obj) -> tuple[int, ...] | None:
    found = re.findall(r"versionadded:: ([0-9.]+)", obj.__doc__ or "")
    return tuple(int(part) for part in found[0].split(".")) if found else None


def spark_connect_api() -> tuple[set[str], set[str]]:
    """Functions and DataFrame methods the Spark Connect client defines, read from its source
    (importing it needs grpcio, which this project does not install)."""
    connect = Path(pyspark.__file__).parent / "sql" / "connect"
    functions = ast.parse((connect / "functions" / "builtin.py").read_text())
    names = {n.name for n in functions.body if isinstance(n, ast.FunctionDef)}
    frame = ast.parse((connect / "dataframe.py").read_text())
    (cls,) = [n for n in frame.body if isinstance(n, ast.ClassDef) and n.name == "DataFrame"]
    methods = {n.name for n in cls.body if isinstance(n, ast.FunctionDef)}
    methods |= {t.id for n in cls.body if isinstance(n, ast.Assign)  # orderBy = sort
                for t in n.targets if isinstance(t, ast.Name)}
    return names, methods


def python_model_sources() -> dict[str, ast.Module]:
    return {p.name: ast.parse(p.read_text(), filename=str(p)) for p in CANONICAL.glob("*.py")}


def library_sources() -> dict[str, ast.Module]:
    # the library, and the package __init__ it imports (the version)
    files = [*LIBRARY.glob("*.py"), LIBRARY.parent / "__init__.py"]
    return {
        str(p.relative_to(LIBRARY.parent.parent)): ast.parse(p.read_text(), filename=str(p))
        for p in files
    }


def imported_modules(tree: ast.Module) -> set[str]:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            found.add(node.module or "")
    return found


def test_python_models_import_only_the_library():
    for name, tree in python_model_sources().items():
        outside = {
            module
            for module in imported_modules(tree)
            if module.split(".")[0] != "pyspark" and module != "sync_logs.canonical"
        }
        assert not outside, f"{name} imports {outside}: rules belong in sync_logs.canonical"


def test_library_imports_nothing_databricks_lacks():
    allowed = {"pyspark", "pyarrow", *sys.stdlib_module_names}
    for name, tree in library_sources().items():
        for module in imported_modules(tree):
            if module == "sync_logs" or module.startswith("sync_logs.canonical"):
                continue
            assert module.split(".")[0] in allowed, f"{name} imports {module}"


def job_libraries(node: dict) -> dict:
    """The `libraries` of the job dbt-databricks submits for a Python model, built by its own
    job compiler from the model's config."""
    from dbt.adapters.databricks.python_models.python_config import ParsedPythonModel
    from dbt.adapters.databricks.python_models.python_submissions import get_library_config

    config = ParsedPythonModel(**node).config
    return get_library_config(config.packages, config.index_url, config.additional_libs)


def test_compiled_jobs_install_nothing_from_an_index_by_default(compiled):
    nodes = compiled_nodes(compiled["empty"]).values()
    python = [n for n in nodes if n.get("language") == "python"]
    assert python
    for node in python:
        assert job_libraries(node) == {"libraries": []}, node["name"]
        assert node["config"]["sync_logs_library"] == VERSION, node["name"]
        assert "require_library(" in node["compiled_code"], node["name"]
        assert f"'sync_logs_library': '{VERSION}'" in node["compiled_code"], node["name"]


WHEEL = f"/Volumes/main/tools/libraries/sync_logs-{VERSION}-py3-none-any.whl"
PRIVATE_INDEX = "https://pypi.example.internal/simple"
# A user's project, configured as docs/databricks.md shows: the wheel on a Volume for every
# canonical model, a private index for one of them.
USER_PROJECT = f"""
name: databricks_user
version: "1.0.0"
config-version: 2
profile: sync_logs
models:
  sync_logs:
    canonical:
      +additional_libs:
        - whl: "{WHEEL}"
      sync_runs:
        +additional_libs: []
        +packages: ["sync-logs=={VERSION}"]
        +index_url: "{PRIVATE_INDEX}"
"""


def test_a_projects_libraries_reach_the_jobs(tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    (project / "dbt_project.yml").write_text(USER_PROJECT)
    (project / "packages.yml").write_text(f"packages:\n  - local: {PROJECT_DIR}\n")
    for command in (["deps"], ["parse"]):
        try:
            run_dbt_subprocess(command, target="databricks", work_dir=tmp_path / "work",
                               project_dir=project)
        except DbtFailed as error:
            pytest.fail(str(error), pytrace=False)
    manifest = json.loads((tmp_path / "work" / "dbt" / "manifest.json").read_text())
    python = {n["name"]: n for n in manifest["nodes"].values()
              if n["resource_type"] == "model" and n["language"] == "python"}
    assert set(python) == {p.stem for p in CANONICAL.glob("*.py")}
    for name, node in python.items():
        expected = (
            [{"pypi": {"package": f"sync-logs=={VERSION}", "repo": PRIVATE_INDEX}}]
            if name == "sync_runs"
            else [{"whl": WHEEL}]
        )
        assert job_libraries(node) == {"libraries": expected}, name


def test_make_dist_builds_the_wheel_of_the_package_version(tmp_path):
    done = subprocess.run(
        ["make", "dist", f"DIST={tmp_path}"],
        cwd=PROJECT_DIR, capture_output=True, text=True, timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    (wheel,) = tmp_path.glob("*.whl")
    assert wheel.name == f"sync_logs-{VERSION}-py3-none-any.whl"
    with zipfile.ZipFile(wheel) as archive:
        metadata = archive.read(f"sync_logs-{VERSION}.dist-info/METADATA").decode()
        names = archive.namelist()
    assert f"\nVersion: {VERSION}\n" in metadata
    assert "sync_logs/canonical/__init__.py" in names
    # the cluster installs no dependency beside the runtime's PySpark: each is an extra's
    requires = [line for line in metadata.splitlines() if line.startswith("Requires-Dist:")]
    assert requires and [line for line in requires if "extra == " not in line] == []


def test_python_models_use_spark_35_and_spark_connect_apis():
    problems = []
    connect_functions, connect_methods = spark_connect_api()
    dataframe_methods = {m for m in dir(DataFrame) if not m.startswith("__")}
    for name, tree in {**python_model_sources(), **library_sources()}.items():
        guarded = {
            id(inner)
            for function in ast.walk(tree)
            if isinstance(function, ast.FunctionDef) and function.name in JVM_GUARDED
            for inner in ast.walk(function)
        }
        for node in ast.walk(tree):
            if not isinstance(node, ast.Attribute) or id(node) in guarded:
                continue
            attr = node.attr
            if attr in JVM_ONLY:
                problems.append(f"{name}: .{attr} (not on Spark Connect / shared clusters)")
            elif isinstance(node.value, ast.Name) and node.value.id == "F":
                function = getattr(F, attr, None)
                if isinstance(function, type):  # F.Column in annotations: a class
                    continue
                if function is None or attr not in connect_functions:
                    problems.append(f"{name}: F.{attr} is not a Spark Connect function")
                elif (version_added(function) or (0,)) > OLDEST_SPARK:
                    problems.append(f"{name}: F.{attr} needs Spark {version_added(function)}")
            elif attr in dataframe_methods:
                if attr not in connect_methods:
                    problems.append(f"{name}: DataFrame.{attr} is not on Spark Connect")
                elif (version_added(getattr(DataFrame, attr)) or (0,)) > OLDEST_SPARK:
                    problems.append(f"{name}: DataFrame.{attr} needs Spark "
                                    f"{version_added(getattr(DataFrame, attr))}")
    assert not problems, "\n".join(sorted(set(problems)))
