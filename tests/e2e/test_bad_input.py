"""Every malformed or hostile request gets a clear 4xx with a JSON body and changes nothing."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.e2e.conftest import ApiClient, assert_error

pytestmark = pytest.mark.security  # the security regression suite: make test-security


def _state(client: ApiClient) -> Any:
    """Everything the tenant can see: rooms with their subscriptions."""
    rooms = client.get("/rooms?limit=100").json()["rooms"]
    return [(room, client.get(f"/rooms/{room['id']}/subscriptions?limit=100").json()) for room in rooms]


@pytest.mark.parametrize(
    ("body", "status", "words"),
    [
        ('{"name": "x",', 400, ["not valid json"]),
        ("not json at all", 400, ["not valid json"]),
        ("[1, 2, 3]", 422, ["body"]),
        ('{"name": 42}', 422, ["body.name"]),
        ('{"name": ""}', 422, ["body.name"]),
        ('{"name": "x", "deliveryDelayMs": "1000"}', 422, ["deliveryDelayMs", "integer"]),
        ('{"name": "x", "deliveryDelayMs": true}', 422, ["deliveryDelayMs"]),
        ('{"name": "x", "deliveryDelayMs": -1}', 422, ["deliveryDelayMs", "greater than or equal"]),
        ('{"name": "x", "deliveryDelayMs": 86400001}', 422, ["deliveryDelayMs", "less than or equal"]),
        ('{"name": "x", "deliveryDelayMultiplier": 0.5}', 422, ["deliveryDelayMultiplier"]),
        ('{"name": "x", "deliveryDelayMultiplier": NaN}', 422, ["deliveryDelayMultiplier"]),
        ('{"name": "x", "deliveryAttempts": -1}', 422, ["deliveryAttempts"]),
        ('{"name": "x", "deliveryAttempts": 51}', 422, ["deliveryAttempts"]),
        ('{"name": "x", "deliveryAttempts": 1.5}', 422, ["deliveryAttempts"]),
        ('{"name": "x", "messageExpirationMs": -5}', 422, ["messageExpirationMs"]),
        ('{"name": "x", "messageExpirationMs": 99999999999999}', 422, ["messageExpirationMs"]),
        ('{"name": "x", "colour": "red"}', 422, ["body.colour", "extra"]),
        ('{"name": "x", "eventTypes": [{"name": "a", "versions": ["v1"]}]}', 422, ["versions"]),
        ('{"name": "x", "eventTypes": [{"name": "a"}, {"name": "a"}]}', 422, ["unique", "a"]),
        ('{"name": "x", "eventTypes": [{"name": "a", "versions": ["1", "1"]}]}', 422, ["unique"]),
        ('{"name": "x", "eventTypes": [{"name": "bad name!"}]}', 422, ["eventTypes"]),
        ('{"name": "x", "eventTypes": "order.created"}', 422, ["eventTypes"]),
        ('{"name": 1, "name": "x"}', 400, ["body", '"name"', "more than once"]),
        ('{"name": "x", "eventTypes": [{"name": "a", "name": "b"}]}', 400, ["body.eventTypes.0", '"name"']),
        ('{"name": "x", "deliveryAttempts": ' + "1" * 5000 + "}", 400, ["more than 4300 digits"]),
    ],
)
def test_bad_room_bodies_are_refused(tenant_a: ApiClient, body: str, status: int, words: list[str]) -> None:
    # Given
    tenant_a.create_room(name="existing")
    before = _state(tenant_a)

    # When
    response = tenant_a.post("/rooms", data=body, headers={"content-type": "application/json"})

    # Then
    assert_error(response, status, *words)
    assert _state(tenant_a) == before


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ({"type": "PULL", "messageExpirationMs": 1000}, ["room owner only"]),
        (
            {"type": "PUSH", "pushUrl": "https://93.184.216.34/", "messageExpirationMs": 0},
            ["room owner only"],
        ),
        ({"type": "QUEUE"}, ["PUSH or PULL"]),
        ({}, ["type is required"]),
        ({"type": "PUSH"}, ["pushUrl", "required"]),
        ({"type": "PULL", "pushUrl": "https://93.184.216.34/"}, ["pushUrl", "extra"]),
        ({"type": "PUSH", "pushUrl": "https://93.184.216.34/", "ackWaitMs": 5000}, ["ackWaitMs"]),
        ({"type": "PULL", "timeoutMs": 5000}, ["timeoutMs"]),
        ({"type": "PUSH", "pushUrl": "https://93.184.216.34/", "timeoutMs": 60000}, ["timeoutMs"]),
        ({"type": "PULL", "ackWaitMs": 500}, ["ackWaitMs"]),
        ({"type": "PULL", "jitter": 1.5}, ["jitter"]),
        ({"type": "PULL", "retryScheduleMs": []}, ["retryScheduleMs"]),
        ({"type": "PULL", "retryScheduleMs": [1000, -1]}, ["retryScheduleMs"]),
        ({"type": "PULL", "maxDelayMs": 10}, ["maxDelayMs"]),
        ({"type": "PULL", "failoverSubscriptionId": "sub_" + "0" * 32}, ["failover"]),
        ({"type": "PUSH", "pushUrl": "ftp://93.184.216.34/"}, ["https"]),
        ({"type": "PUSH", "pushUrl": "http://93.184.216.34/hook"}, ["https"]),
        ({"type": "PUSH", "pushUrl": "not a url"}, ["pushUrl"]),
        ({"type": "PUSH", "pushUrl": "https://user:pw@93.184.216.34/"}, ["credentials"]),
        ({"type": "PUSH", "pushUrl": "https://169.254.169.254/latest/meta-data"}, ["link-local"]),
        ({"type": "PUSH", "pushUrl": "https://167772161/hook"}, ["private"]),
        ({"type": "PUSH", "pushUrl": "https://no-such-host.invalid/hook"}, ["does not resolve"]),
        ({"type": "PUSH", "pushUrl": "https://93.184.216.34/" + "a" * 2100}, ["pushUrl"]),
    ],
)
def test_bad_subscription_bodies_are_refused(
    tenant_a: ApiClient, body: dict[str, Any], words: list[str]
) -> None:
    # Given
    room = tenant_a.create_room()
    before = _state(tenant_a)

    # When
    response = tenant_a.post(f"/rooms/{room['id']}/subscriptions", body)

    # Then
    assert_error(response, 422, *words)
    assert _state(tenant_a) == before


@pytest.mark.parametrize(
    "changes",
    [
        {"name": None},
        {"deliveryAttempts": None},
        {"deliveryDelayMultiplier": 0},
        {"eventTypes": None},
        {"id": "room_" + "1" * 32},
        {"createdAt": "2020-01-01"},
    ],
)
def test_bad_room_patches_are_refused(tenant_a: ApiClient, changes: dict[str, Any]) -> None:
    # Given
    room = tenant_a.create_room()

    # When
    response = tenant_a.patch(f"/rooms/{room['id']}", changes)

    # Then
    assert_error(response, 422, next(iter(changes)))
    assert tenant_a.get(f"/rooms/{room['id']}").json() == room


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("GET", "/rooms/room_00000000000000000000000000000000"),
        ("PATCH", "/rooms/room_00000000000000000000000000000000"),
        ("DELETE", "/rooms/room_00000000000000000000000000000000"),
        ("GET", "/rooms/not-a-room-id"),
        ("GET", "/rooms/" + "x" * 3000),
        ("GET", "/rooms/room_00000000000000000000000000000000/subscriptions"),
        ("POST", "/rooms/room_00000000000000000000000000000000/subscriptions"),
        ("GET", "/rooms/{room}/subscriptions/sub_00000000000000000000000000000000"),
        ("PATCH", "/rooms/{room}/subscriptions/sub_00000000000000000000000000000000"),
        ("DELETE", "/rooms/{room}/subscriptions/sub_00000000000000000000000000000000"),
        ("GET", "/rooms/{room}/subscriptions/%00%ff"),
        ("GET", "/no/such/route"),
    ],
)
def test_unknown_resources_and_routes_answer_404(tenant_a: ApiClient, method: str, path: str) -> None:
    # Given
    room = tenant_a.create_room()
    body = {"type": "PULL"} if method == "POST" else ({"deliveryAttempts": 1} if method == "PATCH" else None)

    # When
    response = tenant_a.request(method, path.replace("{room}", room["id"]), json=body)

    # Then
    assert_error(response, 404)
    assert tenant_a.get(f"/rooms/{room['id']}").json() == room


@pytest.mark.parametrize(
    "query", ["limit=0", "limit=101", "limit=ten", "cursor=garbage", "cursor=" + "A" * 2000]
)
def test_bad_list_parameters_are_refused(tenant_a: ApiClient, query: str) -> None:
    tenant_a.create_room()
    response = tenant_a.get(f"/rooms?{query}")
    assert 400 <= response.status_code < 500
    assert response.json()["error"]["message"]


def test_a_cursor_from_another_list_is_refused(tenant_a: ApiClient) -> None:
    # Given: a cursor of the rooms list
    for n in range(2):
        tenant_a.create_room(name=f"r{n}")
    cursor = tenant_a.get("/rooms?limit=1").json()["nextCursor"]
    room_id = tenant_a.get("/rooms").json()["rooms"][0]["id"]

    # When: it is used on a subscriptions list
    response = tenant_a.get(f"/rooms/{room_id}/subscriptions?cursor={cursor}")

    # Then
    assert_error(response, 400, "cursor")


def test_a_body_that_is_not_declared_json_gets_415(tenant_a: ApiClient) -> None:
    # When: curl -d without a content type sends form encoding
    response = tenant_a.post(
        "/rooms", data='{"name": "x"}', headers={"content-type": "application/x-www-form-urlencoded"}
    )

    # Then
    assert_error(response, 415, "Content-Type: application/json")
    assert tenant_a.get("/rooms").json()["rooms"] == []


@pytest.mark.parametrize("charset", ["utf-16", '"UTF-16LE"', "iso-8859-1"])
def test_a_body_declared_in_another_charset_than_utf8_gets_415(tenant_a: ApiClient, charset: str) -> None:
    # When: a UTF-8 body declared as something else
    response = tenant_a.post(
        "/rooms", data='{"name": "x"}', headers={"content-type": f"application/json; charset={charset}"}
    )

    # Then
    unquoted = charset.strip('"')
    error = assert_error(response, 415, f"charset={unquoted}", "UTF-8")
    assert error["error"]["code"] == "unsupported_media_type"
    assert tenant_a.get("/rooms").json()["rooms"] == []


def test_a_body_declared_utf8_is_read(tenant_a: ApiClient) -> None:
    # When
    response = tenant_a.post(
        "/rooms",
        data='{"name": "café"}'.encode(),
        headers={"content-type": 'application/json; charset="UTF-8"'},
    )

    # Then
    assert response.status_code == 201, response.text
    assert response.json()["name"] == "café"


def test_every_answer_is_marked_nosniff(tenant_a: ApiClient, anonymous: ApiClient) -> None:
    # Given
    room = tenant_a.create_room()

    # When: answers of each function, of the body guard, and of the gateway itself
    answers = {
        "management 200": tenant_a.get(f"/rooms/{room['id']}"),
        "management 404": tenant_a.get("/rooms/room_00000000000000000000000000000000"),
        "management 405": tenant_a.request("PUT", f"/rooms/{room['id']}"),
        "guard 400": tenant_a.post("/rooms", data="{", headers={"content-type": "application/json"}),
        "publish 422": tenant_a.post(f"/rooms/{room['id']}/messages", {"payload": 1}),
        "pull 404": tenant_a.post(f"/rooms/{room['id']}/subscriptions/sub_0/pull", {}),
        "gateway 401": anonymous.get("/rooms"),
        "gateway 403": anonymous.get("/rooms", headers={"Authorization": "Bearer rc_no"}),
        "gateway 404": anonymous.post("/", {}),  # GET / is the docs function's redirect
        "docs": anonymous.get("/docs"),
        "document": anonymous.get("/openapi.json"),
        "root": anonymous.get("/"),  # redirected to the console
        "icon": anonymous.get("/favicon.ico"),
    }

    # Then
    assert {name: r.headers.get("x-content-type-options") for name, r in answers.items()} == {
        name: "nosniff" for name in answers
    }
    for page in ("docs", "document"):
        assert answers[page].headers["x-frame-options"] == "DENY"
        assert "frame-ancestors 'none'" in answers[page].headers["content-security-policy"]


def test_a_body_over_the_gateway_limit_gets_413(tenant_a: ApiClient) -> None:
    response = tenant_a.post("/rooms", data=json.dumps({"name": "x" * (11 * 1024 * 1024)}))
    assert response.status_code == 413
    assert response.json() == {"message": "Request Entity Too Large"}
    assert tenant_a.get("/rooms").json()["rooms"] == []


def test_hostile_requests_never_get_a_5xx(tenant_a: ApiClient) -> None:
    # Given
    room = tenant_a.create_room()
    hostile_bodies = [
        "",
        "null",
        "0",
        '"string"',
        "{}",
        '{"name": {"$gt": ""}}',
        '{"name": "' + "\u0000" * 10 + '"}',
        '{"name": "x", "eventTypes": [' + ",".join([f'{{"name": "e{i}"}}' for i in range(500)]) + "]}",
        "{" * 10_000,
        '{"type": "PUSH", "pushUrl": "https://[::1"}',
        '{"type": "PUSH", "pushUrl": "https://93.184.216.34:99999/"}',
        '{"type": "PUSH", "pushUrl": "https://\u2603.invalid/"}',
        '{"type": "PULL", "retryScheduleMs": [' + ",".join(["1000"] * 1000) + "]}",
        '{"type": "PULL", "deliveryDelayMultiplier": 1e309}',
    ]
    paths = ["/rooms", f"/rooms/{room['id']}", f"/rooms/{room['id']}/subscriptions"]

    # When
    statuses = [
        tenant_a.request(method, path, data=body, headers={"content-type": "application/json"}).status_code
        for body in hostile_bodies
        for path in paths
        for method in ("POST", "PATCH")
    ]

    # Then
    assert all(status < 500 for status in statuses), statuses
    assert tenant_a.get(f"/rooms/{room['id']}").json() == room


@pytest.mark.parametrize("method", ["TRACE", "PROPFIND", "PUT"])
def test_unsupported_method_on_a_resource_is_a_json_405_naming_the_allowed_ones(
    tenant_a: ApiClient, method: str
) -> None:
    # Given
    before = _state(tenant_a)

    # When
    response = tenant_a.request(method, "/rooms")

    # Then
    body = assert_error(response, 405, method, "/rooms")
    assert body["error"]["code"] == "method_not_allowed"
    assert response.headers["allow"] == "GET, POST"
    assert _state(tenant_a) == before


def test_unknown_path_with_an_unknown_method_is_a_json_404(tenant_a: ApiClient) -> None:
    # When
    response = tenant_a.request("PROPFIND", "/no/such/thing")

    # Then
    body = assert_error(response, 404, "PROPFIND", "/no/such/thing")
    assert body["error"]["code"] == "route_not_found"
