"""The local HTTP API gateway's route matching (as API Gateway chooses routes)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from roomcast_dev.gateway import Gateway
from roomcast_dev.template import Route

ROUTES = [
    Route("ANY", "/{proxy+}", "ManagementFunction", authorized=True),
    Route("GET", "/openapi.json", "ManagementFunction", authorized=False),
    Route("GET", "/docs", "ManagementFunction", authorized=False),
    Route("GET", "/rooms/{roomId}", "RoomReader", authorized=True),
    Route("POST", "/rooms/{roomId}/messages", "PublishFunction", authorized=True),
]


@pytest.fixture
def gateway() -> Iterator[Gateway]:
    # Binds a socket on 127.0.0.1 but never serves; only the route matching is exercised.
    gateway = Gateway(routes=ROUTES, authorizer=None, invoke=lambda function_id, event: None, port=0)
    yield gateway
    gateway._server.server_close()


def _route_key(gateway: Gateway, method: str, path: str) -> str | None:
    matched = gateway._match(method, path)
    return None if matched is None else matched[0].route_key


def test_exact_path_wins_over_the_greedy_proxy(gateway: Gateway) -> None:
    # When
    matched = gateway._match("GET", "/openapi.json")

    # Then
    assert matched is not None
    route, path_parameters = matched
    assert route.route_key == "GET /openapi.json"
    assert route.route.authorized is False
    assert path_parameters == {}


def test_unknown_path_falls_to_the_proxy_with_the_rest_of_the_path(gateway: Gateway) -> None:
    # When
    matched = gateway._match("DELETE", "/rooms/x/subscriptions/y")

    # Then
    assert matched is not None
    route, path_parameters = matched
    assert route.route_key == "ANY /{proxy+}"
    assert path_parameters == {"proxy": "rooms/x/subscriptions/y"}


def test_path_variable_route_wins_over_the_proxy_for_its_method(gateway: Gateway) -> None:
    # When
    matched = gateway._match("GET", "/rooms/x")

    # Then
    assert matched is not None
    route, path_parameters = matched
    assert route.route_key == "GET /rooms/{roomId}"
    assert path_parameters == {"roomId": "x"}


@pytest.mark.parametrize(
    ("method", "path"),
    [("PATCH", "/rooms/x"), ("POST", "/openapi.json"), ("DELETE", "/docs"), ("GET", "/rooms/x/messages")],
)
def test_other_method_on_a_method_specific_path_falls_back_to_any(
    gateway: Gateway, method: str, path: str
) -> None:
    # When / Then
    assert _route_key(gateway, method, path) == "ANY /{proxy+}"


def test_proxy_path_parameter_is_the_path_without_its_leading_slash(gateway: Gateway) -> None:
    # When
    matched = gateway._match("PATCH", "/rooms/x")

    # Then
    assert matched is not None
    assert matched[1] == {"proxy": "rooms/x"}


def test_literal_segments_beat_variables(gateway: Gateway) -> None:
    # When / Then
    assert _route_key(gateway, "POST", "/rooms/r1/messages") == "POST /rooms/{roomId}/messages"


def test_path_variable_does_not_span_segments(gateway: Gateway) -> None:
    # When
    matched = gateway._match("GET", "/rooms/x/y")

    # Then
    assert matched is not None
    assert matched[0].route_key == "ANY /{proxy+}"


def test_root_path_matches_no_greedy_route(gateway: Gateway) -> None:
    # When / Then
    assert gateway._match("GET", "/") is None


def test_path_without_a_route_for_its_method_does_not_match() -> None:
    # Given
    gateway = Gateway(routes=[Route("GET", "/docs", "F", False)], authorizer=None, invoke=lambda f, e: None)

    try:
        # When
        matched = gateway._match("POST", "/docs")

        # Then
        assert matched is None
    finally:
        gateway._server.server_close()
