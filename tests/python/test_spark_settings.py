"""`sync_logs.spark.local_session` configures Spark as the `local` target of
profiles.example.yml does, and both targets that start Spark from the profile keep whole-stage
code generation of unions off (docs/engines-and-scale.md, "Targets")."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from sync_logs.spark import local_session_settings

PROFILE = Path(__file__).resolve().parents[2] / "profiles.example.yml"
UNION_CODEGEN = "spark.sql.codegen.wholeStage.union.enabled"
ENV_DEFAULT = re.compile(r"\{\{\s*env_var\('[A-Z_]+',\s*'([^']*)'\)\s*\}\}")


def target_settings(target: str) -> dict[str, str]:
    """A target's Spark settings as they are with no environment variable set."""
    outputs = yaml.safe_load(PROFILE.read_text())["sync_logs"]["outputs"]
    return {key: ENV_DEFAULT.sub(r"\1", str(value))
            for key, value in outputs[target]["server_side_parameters"].items()}


@pytest.mark.parametrize("target", ["local", "cluster"])
def test_union_code_generation_is_off(target):
    assert target_settings(target)[UNION_CODEGEN] == "false"


def test_local_session_plans_queries_as_the_local_target(tmp_path):
    """Every query-planning setting (`spark.sql.*`, but where the warehouse is) that both set
    has the same value; the ones that shape results or plans are set by both."""
    target = target_settings("local")
    session = local_session_settings(tmp_path)
    planning = {key for key in target if key.startswith("spark.sql.")
                and key not in {"spark.sql.warehouse.dir", "spark.sql.catalogImplementation"}}
    assert planning <= set(session)
    assert {key: session[key] for key in planning} == {key: target[key] for key in planning}
