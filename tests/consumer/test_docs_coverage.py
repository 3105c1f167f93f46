"""Everything the package ships is described: models, seeds and their columns (compared with
the columns of the relations the consumer build made, from catalog.json), macros and their
arguments, the shared docs blocks, and every var the package reads (declared in dbt_project.yml
with its default, described in docs/configuration.md)."""

import re
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[2]
DISPATCH_IMPLEMENTATION = re.compile(r"^[a-z0-9]+__")
VAR_CALL = re.compile(r"""(?<![a-z_])var\(\s*['"]([A-Za-z0-9_]+)['"]""")
SHARED_DOCS = {"sync_logs_col_op_type", "sync_logs_col_status", "sync_logs_col_row_id"}
DEPRECATED_VARS = {"raw_root"}


def package_nodes(manifest: dict, resource_types=("model", "seed")) -> dict:
    return {
        uid: node for uid, node in manifest["nodes"].items()
        if node["package_name"] == "sync_logs" and node["resource_type"] in resource_types
    }


def test_every_model_and_seed_is_described(consumer_build):
    nodes = package_nodes(consumer_build.manifest())
    assert len(nodes) > 30
    undescribed = sorted(n["name"] for n in nodes.values() if not n["description"].strip())
    assert undescribed == [], f"models/seeds without a description: {undescribed}"


def test_every_real_column_is_described(consumer_build):
    manifest, catalog = consumer_build.manifest(), consumer_build.catalog()
    problems = {}
    for uid, node in package_nodes(manifest).items():
        built = catalog["nodes"].get(uid)
        assert built, f"{node['name']} is not in catalog.json: was it built?"
        actual = {c.lower() for c in built["columns"]}
        documented = {c.lower(): v["description"].strip() for c, v in node["columns"].items()}
        missing = sorted(actual - documented.keys())
        stale = sorted(documented.keys() - actual)
        empty = sorted(c for c, text in documented.items() if not text)
        if missing or stale or empty:
            problems[node["name"]] = {"undocumented": missing, "not in the relation": stale,
                                      "empty description": empty}
    assert problems == {}, problems


def test_every_public_macro_and_argument_is_described(consumer_build):
    macros = {
        m["name"]: m for m in consumer_build.manifest()["macros"].values()
        if m["package_name"] == "sync_logs"
        and not DISPATCH_IMPLEMENTATION.match(m["name"])
    }
    assert "members_at" in macros
    problems = {}
    for name, macro in sorted(macros.items()):
        if not macro["description"].strip():
            problems[name] = "no description"
            continue
        undescribed = [a["name"] for a in macro["arguments"] if not a.get("description")]
        if undescribed:
            problems[name] = f"arguments without a description: {undescribed}"
    assert problems == {}, problems


def test_shared_definitions_are_docs_blocks_used_by_columns(consumer_build):
    manifest = consumer_build.manifest()
    blocks = {d["name"] for d in manifest["docs"].values() if d["package_name"] == "sync_logs"}
    assert SHARED_DOCS | {"__overview__", "__sync_logs__"} <= blocks
    used = {
        ref.rsplit(".", 1)[-1]
        for node in package_nodes(manifest).values()
        for column in node["columns"].values()
        for ref in column.get("doc_blocks", [])
    }
    assert SHARED_DOCS <= used


def test_every_var_is_declared_with_its_default_and_documented():
    sources = [*REPO.glob("models/**/*.sql"), *REPO.glob("models/**/*.py"),
               *REPO.glob("models/**/*.yml"), *REPO.glob("macros/**/*.sql"),
               *REPO.glob("analyses/**/*.sql"), REPO / "dbt_project.yml"]
    read = {name for path in sources for name in VAR_CALL.findall(path.read_text())}
    # the old name of sync_logs_raw_root, still read, declared nowhere
    assert DEPRECATED_VARS <= read
    used = read - DEPRECATED_VARS
    assert {"sync_logs_raw_root", "sync_logs_source"} <= used
    declared = yaml.safe_load((REPO / "dbt_project.yml").read_text())["vars"]
    assert sorted(used ^ declared.keys()) == []
    configuration = (REPO / "docs" / "configuration.md").read_text()
    rows = "\n".join(line for line in configuration.splitlines() if line.startswith("| `"))

    def documented(name: str) -> bool:
        if f"| `{name}` |" in rows:
            return True
        # per-table identifiers are documented as one row: sync_logs_<source>_<table>_identifier
        family = re.match(r"(sync_logs_(?:tables|hightouch|census))_[a-z_]+_identifier$", name)
        return bool(family) and f"| `{family.group(1)}_<table>_identifier` |" in rows

    assert sorted(name for name in used if not documented(name)) == []
    assert all(f"`{name}`" in configuration for name in DEPRECATED_VARS)
