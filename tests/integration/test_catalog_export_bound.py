"""The catalog's export stays under Lambda's 6 MB response (issue 48: 11 event types x 20 versions
x ~31 KiB made it 7.91 MB): past MAX_EXPORT_BYTES it is refused with a 422 naming the limit, found
before every schema is read; a few event types at a time export. In-process against moto."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from typing import Any

from roomcast.platform import limits
from roomcast_dev.template import StackModel
from tests.integration.conftest import Handler
from tests.support import FakeLambdaContext, api_event

VERSIONS = 20


def big_schemas(name: str) -> dict[str, Any]:
    """Twenty versions of a schema of ~31 KiB each (each its own text)."""
    return {str(v): {"description": f"{name} v{v} " + "x" * (31 * 1024)} for v in range(1, VERSIONS + 1)}


def test_an_export_past_the_limit_is_refused_and_a_few_event_types_export(
    stack_model: StackModel, function_handler: Callable[[str], Handler], aws_calls: Counter[str]
) -> None:
    manage = function_handler("ManagementFunction")

    def call(method: str, path: str, body: Any = None) -> dict[str, Any]:
        return manage(api_event(method, path, body, tenant="acme"), FakeLambdaContext())  # type: ignore[no-any-return]

    # Given: 9 event types of 20 versions of ~31 KiB: ~5.6 MB of schemas
    names = [f"big.{n}" for n in range(9)]
    for name in names:
        created = call("POST", "/event-types", {"name": name, "schemas": big_schemas(name)})
        assert created["statusCode"] == 201, created["body"][:300]

    # When: the whole catalog is exported
    aws_calls.clear()
    whole = call("GET", "/catalog/openapi.json")

    # Then: refused naming the limit, before every schema was read
    assert whole["statusCode"] == 422
    error = json.loads(whole["body"])["error"]
    assert error["code"] == "export_too_large"
    assert str(limits.MAX_EXPORT_BYTES) in error["message"]
    assert aws_calls["BatchGetItem"] < 9 * VERSIONS / 25

    # And: two of them export, under the limit
    some = call("GET", "/catalog/openapi.json?eventType=big.0,big.1")  # (a gateway joins repeats so)
    assert some["statusCode"] == 200, some["body"][:300]
    assert len(some["body"]) < limits.MAX_EXPORT_BYTES
    assert len(json.loads(some["body"])["webhooks"]) == 2 * VERSIONS
    missing = call("GET", "/catalog/openapi.json?eventType=nope")
    assert (missing["statusCode"], json.loads(missing["body"])["error"]["code"]) == (404, "not_found")
