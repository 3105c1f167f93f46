"""`dbt compile --target databricks` without a workspace.

dbt-databricks compiles SQL models offline (`--no-introspect --no-populate-cache`), but a
Python model's compiled code evaluates `is_incremental()` and `this`, which look the model's
relation up in the catalog (macro `get_uc_tables`). This runner answers exactly that one
catalog question from a fixed picture of the workspace, and nothing else: any other query
still needs a connection and fails, as it would without one.

    python -m sync_logs_dev.databricks_offline --catalog empty|existing [--manifest PATH] \
        -- <dbt args>

`empty`: the schema holds nothing (a first run; every `is_incremental()` is false).
`existing`: every model of the manifest exists as a Delta table (an incremental run).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from dbt.adapters.databricks.impl import DatabricksAdapter, DatabricksRelationInfo
from dbt.cli.main import dbtRunner


def existing_tables(manifest: Path) -> dict[tuple[str, str], list[DatabricksRelationInfo]]:
    """(catalog, schema) -> a Delta table or view for each enabled model of `manifest`."""
    nodes = json.loads(manifest.read_text())["nodes"].values()
    tables: dict[tuple[str, str], list[DatabricksRelationInfo]] = {}
    for node in nodes:
        if node["resource_type"] not in ("model", "seed", "snapshot"):
            continue
        kind = "view" if node["config"].get("materialized") == "view" else "table"
        key = ((node["database"] or "").lower(), node["schema"].lower())
        tables.setdefault(key, []).append(
            DatabricksRelationInfo(node["alias"], kind, "delta", "sync_logs", "managed")
        )
    return tables


def install_catalog(mode: str, manifest: Path | None) -> None:
    tables = existing_tables(manifest) if mode == "existing" and manifest else {}

    def get_relations_without_caching(self, relation):
        key = ((relation.database or "").lower(), (relation.schema or "").lower())
        return list(tables.get(key, []))

    DatabricksAdapter.get_relations_without_caching = get_relations_without_caching


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--catalog", choices=["empty", "existing"], default="empty")
    parser.add_argument("--manifest", type=Path)
    parser.add_argument("dbt_args", nargs=argparse.REMAINDER)
    args = parser.parse_args(argv)
    dbt_args = args.dbt_args[1:] if args.dbt_args[:1] == ["--"] else args.dbt_args
    if args.catalog == "existing" and not (args.manifest and args.manifest.exists()):
        parser.error("--catalog existing needs --manifest from a `dbt parse`")
    install_catalog(args.catalog, args.manifest)
    result = dbtRunner().invoke(dbt_args)
    return 0 if result.success else 1


if __name__ == "__main__":
    sys.exit(main())
