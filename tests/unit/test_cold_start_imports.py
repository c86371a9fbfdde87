"""What a function's cold start imports (docs/decisions/0008-cold-start.md): each handler module is
imported in a fresh interpreter with the template's environment, as Lambda does, and the modules
it loaded are checked."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from roomcast_dev.template import read_stack

_LOADED = """
import importlib, json, sys
importlib.import_module(sys.argv[1])
loader = sys.modules.get("pydantic.plugin._loader")
looked_up = loader is not None and loader._plugins is not None
print(json.dumps({"modules": sorted(sys.modules), "plugins_looked_up": looked_up}))
"""


def _cold_start(logical_id: str) -> dict[str, Any]:
    model = read_stack("roomcast-test", "us-east-1", {}, lambda name: f"https://sqs.local/{name}")
    spec = model.functions[logical_id]
    python_path = [str(spec.code_path), *(str(p) for p in spec.layer_paths)]
    environment = {
        **os.environ,
        **spec.environment,
        "AWS_DEFAULT_REGION": "us-east-1",
        "PYTHONPATH": os.pathsep.join(python_path),
    }
    module = spec.handler.rpartition(".")[0]
    completed = subprocess.run(  # noqa: S603 - this interpreter, a handler module named by the template
        [sys.executable, "-c", _LOADED, module],
        env=environment,
        capture_output=True,
        text=True,
        check=True,
        cwd=Path(spec.code_path),
    )
    result: dict[str, Any] = json.loads(completed.stdout)
    return result


def _modules_after_import(logical_id: str) -> set[str]:
    return set(_cold_start(logical_id)["modules"])


def test_management_imports_no_service_and_no_data_access_before_a_request() -> None:
    # Given / When
    loaded = _modules_after_import("ManagementFunction")

    # Then: each route's service (and the data access behind it) comes with its first request
    assert "management_api.rooms.routes" in loaded
    assert not {m for m in loaded if m.startswith("management_api.") and m.endswith(".service")}
    assert "roomcast.dal.stores" not in loaded
    assert "boto3" not in loaded


@pytest.mark.parametrize("logical_id", ["ManagementFunction", "PublishFunction", "PullFunction"])
def test_no_pydantic_plugin_lookup_at_cold_start(logical_id: str) -> None:
    # Given / When
    cold_start = _cold_start(logical_id)

    # Then: pydantic built models without reading every installed package's entry points
    assert "pydantic.main" in cold_start["modules"]
    assert cold_start["plugins_looked_up"] is False


def test_the_authorizer_imports_no_pydantic() -> None:
    assert "pydantic" not in _modules_after_import("AuthorizerFunction")
