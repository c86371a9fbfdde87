"""Any RFC 3339 date-time the API accepts is answered without a 5xx (issue 48): near year 1 or
9999 a zone's offset moves it past what a datetime holds in UTC, which is a 422 naming the field;
in a batch only that message is refused and the others are published. In-process against moto."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any
from urllib.parse import quote

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from roomcast_dev.template import StackModel
from tests.integration.conftest import Handler
from tests.support import FakeLambdaContext, api_event

pytestmark = pytest.mark.security

EDGES = [
    "9999-12-31T23:59:59-01:00",
    "0001-01-01T00:00:00+01:00",
    "9999-12-31T23:59:59Z",
    "0001-01-01T00:00:00Z",
    "9999-12-31T23:59:59.999999999+23:59",
    "0001-01-01T00:00:00-23:59",
]


@st.composite
def rfc3339(draw: st.DrawFn) -> str:
    year = draw(st.sampled_from([1, 2, 1970, 2026, 9998, 9999]) | st.integers(1, 9999))
    month, day = draw(st.integers(1, 12)), draw(st.integers(1, 28))
    hour, minute, second = draw(st.integers(0, 23)), draw(st.integers(0, 59)), draw(st.integers(0, 59))
    fraction = draw(st.sampled_from(["", ".5", ".999999999"]))
    offset = draw(st.sampled_from(["Z", "+00:00", "+01:00", "-01:00", "+23:59", "-23:59", "+14:00"]))
    return f"{year:04d}-{month:02d}-{day:02d}T{hour:02d}:{minute:02d}:{second:02d}{fraction}{offset}"


DATES = st.sampled_from(EDGES) | rfc3339()


@pytest.fixture
def room(stack_model: StackModel, function_handler: Callable[[str], Handler]) -> tuple[str, str]:
    manage = function_handler("ManagementFunction")
    created = manage(api_event("POST", "/rooms", {"name": "dates"}, tenant="acme"), FakeLambdaContext())
    room_id: str = json.loads(created["body"])["id"]
    subscribed = manage(
        api_event("POST", f"/rooms/{room_id}/subscriptions", {"type": "PULL"}, tenant="acme"),
        FakeLambdaContext(),
    )
    assert subscribed["statusCode"] == 201, subscribed
    return room_id, json.loads(subscribed["body"])["id"]


def answered(response: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    status = response["statusCode"]
    assert status < 500, response
    body: dict[str, Any] = json.loads(response["body"])
    if status >= 400:
        assert body["error"]["code"], body
        assert body["error"]["message"], body
    return status, body


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(moment=DATES)
def test_any_date_time_is_answered_without_a_5xx(
    room: tuple[str, str], function_handler: Callable[[str], Handler], moment: str
) -> None:
    room_id, subscription_id = room
    publish = function_handler("PublishFunction")
    manage = function_handler("ManagementFunction")
    message = {"eventType": "order.created", "eventVersion": "1", "payload": {"n": 1}}

    # A publish scheduled at it
    answered(
        publish(
            api_event("POST", f"/rooms/{room_id}/messages", {**message, "deliverAt": moment}, tenant="acme"),
            FakeLambdaContext(),
        )
    )

    # A batch with it beside a good message: only that message is refused
    batch = {"messages": [{**message, "deliverAt": moment}, message]}
    status, body = answered(
        publish(
            api_event("POST", f"/rooms/{room_id}/messages/batch", batch, tenant="acme"), FakeLambdaContext()
        )
    )
    assert status == 200, body
    assert body["results"][1]["status"] == 202, body
    if body["results"][0]["status"] == 422:
        assert body["results"][0]["error"]["details"][0]["field"].startswith("body.messages.0.deliverAt")

    # A list of messages since or until it, and a replay since it
    for query in ("since", "until"):
        answered(
            manage(
                api_event("GET", f"/rooms/{room_id}/messages?{query}={quote(moment)}", tenant="acme"),
                FakeLambdaContext(),
            )
        )
    replay = {"since": moment}
    answered(
        manage(
            api_event(
                "POST",
                f"/rooms/{room_id}/subscriptions/{subscription_id}/dead-letters/replay",
                replay,
                tenant="acme",
            ),
            FakeLambdaContext(),
        )
    )


@pytest.mark.parametrize("moment", EDGES[:2])
def test_a_date_whose_utc_falls_outside_the_years_one_to_9999_is_a_422_naming_the_field(
    room: tuple[str, str], function_handler: Callable[[str], Handler], moment: str
) -> None:
    room_id, _ = room
    publish = function_handler("PublishFunction")
    message = {"eventType": "order.created", "eventVersion": "1", "payload": {"n": 1}, "deliverAt": moment}
    status, body = answered(
        publish(api_event("POST", f"/rooms/{room_id}/messages", message, tenant="acme"), FakeLambdaContext())
    )
    assert status == 422
    assert body["error"]["details"][0]["field"] == "body.deliverAt"
    assert "outside the years 1 to 9999" in body["error"]["details"][0]["problem"]
