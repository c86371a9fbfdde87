"""The handler every API function is (``roomcast.api.handlers.http_handler``): whatever it answers,
a route's result, one of its error handlers' or a body guard's, says ``nosniff``."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel

from roomcast.api.documented_routes import new_router
from roomcast.api.handlers import http_handler, new_api
from roomcast.platform.errors import NotFound
from tests.support import FakeLambdaContext, api_event


class Thing(BaseModel):
    name: str


router = new_router()


@router.get("/things/<thingId>")
def get_thing(thingId: str) -> Thing:
    if thingId == "missing":
        raise NotFound("no such thing")
    return Thing(name=thingId)


@router.post("/things")
def create_thing(body: Thing) -> Thing:
    return body


HANDLER = http_handler(new_api(router), lambda request_id: None, max_body_bytes=1024, throttle=lambda: None)


def _call(event: dict[str, Any]) -> dict[str, Any]:
    context: Any = FakeLambdaContext()
    return HANDLER(event, context)


@pytest.mark.parametrize(
    ("event", "status"),
    [
        pytest.param(api_event("GET", "/things/a"), 200, id="a-route"),
        pytest.param(api_event("GET", "/things/missing"), 404, id="a-domain-error"),
        pytest.param(api_event("GET", "/elsewhere"), 404, id="no-route"),
        pytest.param(api_event("POST", "/things", {"name": 1}), 422, id="a-validation-error"),
        pytest.param(api_event("POST", "/things", {"name": "x" * 2000}), 413, id="the-size-guard"),
        pytest.param(
            api_event("POST", "/things", {"name": "x"}, headers={"content-type": "text/plain"}),
            415,
            id="the-json-guard",
        ),
    ],
)
def test_every_answer_says_nosniff(event: dict[str, Any], status: int) -> None:
    # When
    response = _call(event)

    # Then
    assert response["statusCode"] == status
    assert response["headers"]["X-Content-Type-Options"] == "nosniff"
    assert response["headers"]["Content-Type"] == "application/json"
