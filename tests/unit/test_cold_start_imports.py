"""What a function's cold start imports (docs/decisions/0008-cold-start.md): each handler module is
imported in a fresh interpreter with the template's environment, as Lambda does, and the modules
it loaded are checked."""

from __future__ import annotations

import json
from functools import cache
from typing import Any

import pytest

from bench.cold_start import FunctionImport, function_imports, run_fresh
from tests.unit.test_layering import _adapters

_LOADED = """
import importlib, json, sys
importlib.import_module(sys.argv[1])
loader = sys.modules.get("pydantic.plugin._loader")
looked_up = loader is not None and loader._plugins is not None
print(json.dumps({"modules": sorted(sys.modules), "plugins_looked_up": looked_up}))
"""


@cache
def _imports() -> dict[str, FunctionImport]:
    return {f.name: f for f in function_imports()}


def _cold_start(logical_id: str) -> dict[str, Any]:
    function = _imports()[logical_id]
    result: dict[str, Any] = json.loads(
        run_fresh(_LOADED, function.module, function.python_path, function.environment)
    )
    return result


def _data_access(module: str) -> bool:
    """Whether a module of the layer talks to AWS: a store, a queue, a sender (tests/unit/
    test_layering.py's adapters)."""
    return module in _adapters()


def _modules_after_import(logical_id: str) -> set[str]:
    return set(_cold_start(logical_id)["modules"])


def test_management_imports_no_service_and_no_data_access_before_a_request() -> None:
    # Given / When
    loaded = _modules_after_import("ManagementFunction")

    # Then: each route's service (and the data access behind it) comes with its first request
    assert "management_api.rooms.routes" in loaded
    assert not {m for m in loaded if m.startswith("management_api.") and m.endswith(".service")}
    assert not {m for m in loaded if m.startswith("roomcast.") and _data_access(m)}
    assert "boto3" not in loaded
    assert "botocore.exceptions" not in loaded  # powertools itself imports botocore (its user agent)


@pytest.mark.parametrize("logical_id", ["ManagementFunction", "PublishFunction", "PullFunction"])
def test_no_pydantic_plugin_lookup_at_cold_start(logical_id: str) -> None:
    # Given / When
    cold_start = _cold_start(logical_id)

    # Then: pydantic built models without reading every installed package's entry points
    assert "pydantic.main" in cold_start["modules"]
    assert cold_start["plugins_looked_up"] is False


def test_the_authorizer_imports_no_pydantic() -> None:
    assert "pydantic" not in _modules_after_import("AuthorizerFunction")
