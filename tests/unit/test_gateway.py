"""The local HTTP API gateway's route matching (as API Gateway chooses routes)."""

from __future__ import annotations

import pytest

from roomcast_dev.gateway_routes import RouteTable
from roomcast_dev.template import Route

ROUTES = [
    Route("ANY", "/{proxy+}", "ManagementFunction", authorized=True),
    Route("GET", "/openapi.json", "ManagementFunction", authorized=False),
    Route("GET", "/docs", "ManagementFunction", authorized=False),
    Route("GET", "/rooms/{roomId}", "RoomReader", authorized=True),
    Route("POST", "/rooms/{roomId}/messages", "PublishFunction", authorized=True),
]


@pytest.fixture
def routes() -> RouteTable:
    return RouteTable(ROUTES)


def _route_key(routes: RouteTable, method: str, path: str) -> str | None:
    matched = routes.match(method, path)
    return None if matched is None else matched[0].route_key


def test_exact_path_wins_over_the_greedy_proxy(routes: RouteTable) -> None:
    # When
    matched = routes.match("GET", "/openapi.json")

    # Then
    assert matched is not None
    route, path_parameters = matched
    assert route.route_key == "GET /openapi.json"
    assert route.route.authorized is False
    assert path_parameters == {}


def test_unknown_path_falls_to_the_proxy_with_the_rest_of_the_path(routes: RouteTable) -> None:
    # When
    matched = routes.match("DELETE", "/rooms/x/subscriptions/y")

    # Then
    assert matched is not None
    route, path_parameters = matched
    assert route.route_key == "ANY /{proxy+}"
    assert path_parameters == {"proxy": "rooms/x/subscriptions/y"}


def test_path_variable_route_wins_over_the_proxy_for_its_method(routes: RouteTable) -> None:
    # When
    matched = routes.match("GET", "/rooms/x")

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
    routes: RouteTable, method: str, path: str
) -> None:
    # When / Then
    assert _route_key(routes, method, path) == "ANY /{proxy+}"


def test_proxy_path_parameter_is_the_path_without_its_leading_slash(routes: RouteTable) -> None:
    # When
    matched = routes.match("PATCH", "/rooms/x")

    # Then
    assert matched is not None
    assert matched[1] == {"proxy": "rooms/x"}


def test_literal_segments_beat_variables(routes: RouteTable) -> None:
    # When / Then
    assert _route_key(routes, "POST", "/rooms/r1/messages") == "POST /rooms/{roomId}/messages"


def test_path_variable_does_not_span_segments(routes: RouteTable) -> None:
    # When
    matched = routes.match("GET", "/rooms/x/y")

    # Then
    assert matched is not None
    assert matched[0].route_key == "ANY /{proxy+}"


def test_root_path_matches_no_greedy_route(routes: RouteTable) -> None:
    # When / Then
    assert routes.match("GET", "/") is None


def test_path_without_a_route_for_its_method_does_not_match() -> None:
    # Given
    routes = RouteTable([Route("GET", "/docs", "F", False)])

    # When
    matched = routes.match("POST", "/docs")

    # Then
    assert matched is None
