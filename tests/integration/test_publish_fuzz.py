"""Property-based fuzz of the publish parser, in-process against moto: whatever the body (any JSON,
lone surrogates, huge numbers, wrong types, raw bytes), the publish function answers a 2xx or a
4xx with a JSON error naming the problem, never a 5xx, and a refused publish stores nothing."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from roomcast_dev.template import StackModel
from tests.integration.conftest import Handler
from tests.support import FakeLambdaContext, api_event

pytestmark = pytest.mark.security  # the security regression suite: make test-security

# Text with every kind of character, lone surrogates included (JSON allows "\ud800").
ANY_TEXT = st.text(st.characters(codec=None, categories=None), max_size=12) | st.sampled_from(
    ["\ud800", "a\udfffb", "\udbff\udbff", "\u0000"]
)
SCALARS = st.none() | st.booleans() | st.integers() | st.floats() | ANY_TEXT
JSON_VALUES = st.recursive(
    SCALARS,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(ANY_TEXT, children, max_size=4),
    max_leaves=12,
)
GOOD = {"eventType": "order.created", "eventVersion": "1", "payload": {"orderId": 1}}
FIELDS = st.sampled_from([*GOOD, "correlationId", "destinations", "extra"])
BODIES = st.one_of(
    # a good publish with some fields replaced by anything
    st.dictionaries(FIELDS, JSON_VALUES, max_size=3).map(lambda changes: {**GOOD, **changes}),
    # anything at all
    JSON_VALUES,
)


def _messages_stored(function_handler: Callable[[str], Handler], room_id: str) -> list[Any]:
    manage = function_handler("ManagementFunction")
    response = manage(api_event("GET", f"/rooms/{room_id}/messages", tenant="acme"), FakeLambdaContext())
    assert response["statusCode"] == 200, response
    messages: list[Any] = json.loads(response["body"])["messages"]
    return messages


@pytest.fixture
def room_id(stack_model: StackModel, function_handler: Callable[[str], Handler]) -> str:
    manage = function_handler("ManagementFunction")
    created = manage(api_event("POST", "/rooms", {"name": "fuzz"}, tenant="acme"), FakeLambdaContext())
    assert created["statusCode"] == 201, created
    room: str = json.loads(created["body"])["id"]
    return room


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(body=BODIES)
def test_any_json_body_is_answered_without_a_5xx_and_a_refusal_stores_nothing(
    body: Any, room_id: str, function_handler: Callable[[str], Handler]
) -> None:
    # Given
    publish = function_handler("PublishFunction")
    before = len(_messages_stored(function_handler, room_id))
    event = api_event("POST", f"/rooms/{room_id}/messages", tenant="acme")
    event["body"] = json.dumps(body)  # escaped: lone surrogates travel as \ud800, as a client sends them

    # When
    response = publish(event, FakeLambdaContext())

    # Then
    status = response["statusCode"]
    assert status < 500, response
    if status >= 400:
        error = json.loads(response["body"])["error"]
        assert error["code"]
        assert error["message"]
        assert len(_messages_stored(function_handler, room_id)) == before
    else:
        assert status == 202
        assert len(_messages_stored(function_handler, room_id)) == before + 1


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(raw=st.binary(max_size=64))
def test_any_bytes_are_answered_with_a_4xx(
    raw: bytes, room_id: str, function_handler: Callable[[str], Handler]
) -> None:
    publish = function_handler("PublishFunction")
    event = api_event("POST", f"/rooms/{room_id}/messages", tenant="acme")
    event["body"] = raw.decode("latin-1")

    response = publish(event, FakeLambdaContext())

    assert 400 <= response["statusCode"] < 500, response
    assert json.loads(response["body"])["error"]["code"]
