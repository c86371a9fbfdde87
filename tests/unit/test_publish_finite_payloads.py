"""The publish route refuses a payload that JSON cannot carry faithfully — NaN or an infinity,
which Python's json module reads — with 422 ``finite_number``, before anything is stored. Pinned at
the handler (no AWS call is made before the body is valid): a model configuration change once let
them through only where powertools validates the body (pydantic's ``defer_build`` dropped
``allow_inf_nan=False`` for the ``JsonValue`` payload), which only the end-to-end suite saw."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any, cast

import pytest

from roomcast.platform.config import load_settings
from roomcast.wiring import tenant_throttle
from tests.support import FakeLambdaContext, api_event

ENVIRONMENT = {
    "TABLE_NAME": "roomcast-table",
    "AWS_DEFAULT_REGION": "us-east-1",
    "POWERTOOLS_METRICS_DISABLED": "true",
    "POWERTOOLS_TRACE_DISABLED": "true",
    "TENANT_REQUESTS_PER_SECOND": "0",
}


@pytest.fixture(autouse=True)
def _settings_of_this_test_only() -> Iterator[None]:
    """The handler's settings are read from this test's environment and forgotten afterwards."""
    load_settings.cache_clear()
    tenant_throttle.cache_clear()
    yield
    load_settings.cache_clear()
    tenant_throttle.cache_clear()


@pytest.mark.parametrize("payload", ["NaN", "Infinity", "-Infinity", "[1e309]", '{"total": -1e309}'])
def test_a_payload_that_is_not_finite_is_refused(payload: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # Given
    for name, value in ENVIRONMENT.items():
        monkeypatch.setenv(name, value)
    from publish_api.handler import lambda_handler

    body = f'{{"eventType": "order.created", "eventVersion": "1", "payload": {payload}}}'
    event = api_event("POST", "/rooms/room_" + "1" * 32 + "/messages", None, tenant="acme")
    event["body"] = body

    # When
    answer = lambda_handler(event, cast(Any, FakeLambdaContext()))

    # Then
    assert answer["statusCode"] == 422, answer
    details = json.loads(answer["body"])["error"]["details"]
    assert {detail["type"] for detail in details} == {"finite_number"}
