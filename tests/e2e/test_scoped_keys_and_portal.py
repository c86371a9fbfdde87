"""Scoped API keys and portal sessions over the local stack (issue 51, ADR 0048): a key does only
what its scopes allow (403 naming the scope) on its rooms only (404 elsewhere); a key stored before
scopes is an admin key; a portal token reaches only its consumer's subscriptions on its rooms, and
every other route answers it 404 with nothing changed; an expired or revoked token answers 401."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
import requests

from roomcast.platform import hash_api_key
from roomcast_dev.stack import LocalStack
from tests.e2e.conftest import ApiClient, assert_error
from tests.e2e.test_publish_and_pull import publish
from tests.e2e.webhook_server import WebhookServers, always, webhook_servers

__all__ = ["webhook_servers"]

PUSH_URL = "http://127.0.0.1:9/hook"


def _as(client: ApiClient, key: str) -> ApiClient:
    return ApiClient(client.base_url, key, client.session)


def _key(client: ApiClient, **body: Any) -> ApiClient:
    response = client.post("/api-keys", body)
    assert response.status_code == 201, response.text
    return _as(client, response.json()["key"])


def _session(client: ApiClient, **body: Any) -> dict[str, Any]:
    response = client.post("/portal-sessions", body)
    assert response.status_code == 201, response.text
    created: dict[str, Any] = response.json()
    return created


def test_a_publish_key_publishes_and_reads_its_messages_but_cannot_delete_a_room(tenant_a: ApiClient) -> None:
    # Given
    room = tenant_a.create_room()
    publisher = _key(tenant_a, name="publisher", scopes=["publish"])

    # When
    published = publish(publisher, room["id"])
    status = publisher.get(f"/rooms/{room['id']}/messages/{published['messageId']}")
    deleted = publisher.delete(f"/rooms/{room['id']}")

    # Then
    assert status.status_code == 200, status.text
    error = assert_error(deleted, 403, "manage")
    assert error["error"]["code"] == "missing_scope"
    assert tenant_a.get(f"/rooms/{room['id']}").status_code == 200  # nothing changed
    assert_error(publisher.post("/api-keys", {}), 403, "admin")
    assert_error(publisher.post(f"/rooms/{room['id']}/subscriptions", {"type": "PULL"}), 403, "manage")


def test_a_key_limited_to_room_a_finds_no_room_b(tenant_a: ApiClient) -> None:
    # Given
    room_a, room_b = tenant_a.create_room(), tenant_a.create_room()
    limited = _key(tenant_a, scopes=["manage"], rooms=[room_a["id"]])

    # Then: room B is not found, as if it did not exist; room A works; lists show room A only
    assert limited.get(f"/rooms/{room_a['id']}").status_code == 200
    assert_error(limited.get(f"/rooms/{room_b['id']}"), 404, room_b["id"])
    assert_error(limited.delete(f"/rooms/{room_b['id']}"), 404, room_b["id"])
    assert_error(publish_raw(limited, room_b["id"]), 403, "publish")  # manage does not publish
    assert [r["id"] for r in limited.get("/rooms").json()["rooms"]] == [room_a["id"]]
    assert_error(limited.post("/rooms", {"name": "x"}), 403, "rooms")
    assert tenant_a.get(f"/rooms/{room_b['id']}").status_code == 200


def publish_raw(client: ApiClient, room_id: str) -> requests.Response:
    return client.post(f"/rooms/{room_id}/messages", {"eventType": "e", "eventVersion": "1", "payload": {}})


def test_a_key_stored_before_scopes_is_an_admin_key(tenant_a: ApiClient, empty_stack: LocalStack) -> None:
    # Given: a key's items as they were stored before keys had scopes (no scopes, no rooms)
    key = "rc_" + "k" * 43
    empty_stack.client("dynamodb").put_item(
        TableName=empty_stack.output("TableName"),
        Item={
            "PK": {"S": f"APIKEY#{hash_api_key(key)}"},
            "SK": {"S": "APIKEY"},
            "entity": {"S": "apiKey"},
            "tenantId": {"S": "tenant-a"},
            "keyId": {"S": "key_00000000000000aa"},
            "createdAt": {"S": "2026-01-01T00:00:00.000Z"},
        },
    )
    old = _as(tenant_a, key)

    # Then: it does everything, keys included
    room = old.create_room()
    assert old.delete(f"/rooms/{room['id']}").status_code in (202, 204)
    assert old.post("/api-keys", {}).status_code == 201


def test_keys_of_different_scopes_get_their_own_answers_on_one_route(tenant_a: ApiClient) -> None:
    # The gateway caches the authorizer's answer per Authorization header: used in turn on the
    # same route, each key keeps its own answer.
    room = tenant_a.create_room()
    reader, publisher = _key(tenant_a, scopes=["read"]), _key(tenant_a, scopes=["publish"])
    for _ in range(3):
        assert reader.get(f"/rooms/{room['id']}/subscriptions").status_code == 200
        assert publisher.get(f"/rooms/{room['id']}/subscriptions").status_code == 403


@pytest.fixture
def portal(tenant_a: ApiClient) -> dict[str, Any]:
    """Room A with acme's and globex's subscriptions, room B; a portal session for acme on A."""
    room_a, room_b = tenant_a.create_room(), tenant_a.create_room()
    acme = tenant_a.create_subscription(
        room_a["id"], type="PUSH", pushUrl=PUSH_URL, consumerId="acme", eventTypes=[{"name": "order.created"}]
    )
    globex = tenant_a.create_subscription(room_a["id"], type="PUSH", pushUrl=PUSH_URL, consumerId="globex")
    on_b = tenant_a.create_subscription(room_b["id"], type="PUSH", pushUrl=PUSH_URL, consumerId="acme")
    session = _session(
        tenant_a, consumerId="acme", rooms=[room_a["id"]], eventTypes=["order.created", "order.shipped"]
    )
    return {
        "client": _as(tenant_a, session["token"]),
        "session": session,
        "room_a": room_a["id"],
        "room_b": room_b["id"],
        "acme": acme["id"],
        "globex": globex["id"],
        "on_b": on_b["id"],
    }


def test_a_portal_token_lists_and_manages_only_its_consumers_subscriptions(
    tenant_a: ApiClient, portal: dict[str, Any]
) -> None:
    client, room_a = portal["client"], portal["room_a"]
    base = f"/rooms/{room_a}/subscriptions"

    # Lists only acme's
    listed = client.get(base)
    assert listed.status_code == 200, listed.text
    assert [s["id"] for s in listed.json()["subscriptions"]] == [portal["acme"]]
    assert [s["id"] for s in tenant_a.get(base, params={"consumerId": "globex"}).json()["subscriptions"]] == [
        portal["globex"]
    ]

    # Creates for acme only, PUSH only, on its rooms and event types only
    created = client.post(
        base, {"type": "PUSH", "pushUrl": PUSH_URL, "eventTypes": [{"name": "order.shipped"}]}
    )
    assert created.status_code == 201, created.text
    assert created.json()["consumerId"] == "acme"
    assert created.json()["signingSecret"]
    other = {
        "type": "PUSH",
        "pushUrl": PUSH_URL,
        "eventTypes": [{"name": "order.shipped"}],
        "consumerId": "globex",
    }
    assert_error(client.post(base, other), 422, "consumer")
    outside = {"type": "PUSH", "pushUrl": PUSH_URL, "eventTypes": [{"name": "invoice.paid"}]}
    assert_error(client.post(base, outside), 422, "invoice.paid")
    on_b = {"type": "PUSH", "pushUrl": PUSH_URL, "eventTypes": [{"name": "order.shipped"}]}
    assert_error(client.post(f"/rooms/{portal['room_b']}/subscriptions", on_b), 404, portal["room_b"])
    assert_error(client.post(base, {"type": "PULL", "eventTypes": [{"name": "order.shipped"}]}), 422, "PUSH")
    extra = {**on_b, "deliveryAttempts": 50}
    assert_error(client.post(base, extra), 403, "deliveryAttempts")

    # Changes its own: URL, pause; rotates its secret; never another consumer's
    mine = f"{base}/{portal['acme']}"
    assert client.patch(mine, {"pushUrl": "http://127.0.0.1:9/new"}).status_code == 200
    assert client.patch(mine, {"status": "paused"}).json()["status"] == "paused"
    assert_error(client.patch(mine, {"status": "disabled"}), 403, "status")
    assert client.post(f"{mine}/rotate-secret", {}).status_code == 200
    assert_error(client.get(f"{base}/{portal['globex']}"), 404, portal["globex"])
    assert_error(client.patch(f"{base}/{portal['globex']}", {"status": "paused"}), 404, portal["globex"])
    assert tenant_a.get(f"{base}/{portal['globex']}").json()["status"] == "active"

    # Its session, as the portal page reads it
    current = client.get("/portal-session").json()
    assert current["consumerId"] == "acme"
    assert current["rooms"] == [room_a]


def _route_table() -> list[tuple[str, str]]:
    from tests.e2e.test_scoped_keys_and_portal_routes import declared_routes

    return declared_routes()


def test_every_route_outside_a_portal_tokens_reach_answers_404_and_changes_nothing(
    tenant_a: ApiClient, tenant_b: ApiClient, portal: dict[str, Any], empty_stack: LocalStack
) -> None:
    # Given: a portal token of tenant A (acme on room A), and one of tenant B
    client = portal["client"]
    room_b2 = tenant_b.create_room()
    other_tenant = _as(tenant_b, _session(tenant_b, consumerId="acme", rooms=[room_b2["id"]])["token"])
    before = _table_items(empty_stack)
    ids = {
        "roomId": portal["room_b"],
        "subscriptionId": portal["on_b"],
        "messageId": "msg_" + "0" * 32,
        "keyId": "key_" + "0" * 16,
        "name": "order.created",
        "jobId": "job_" + "0" * 32,
        "ruleId": "alr_" + "0" * 32,
        "orderingKey": "k",
        "sessionId": portal["session"]["sessionId"],
    }
    reachable_in_room_a = {"roomId": portal["room_a"], "subscriptionId": portal["globex"]}

    # When: every declared route, with ids outside the token's reach (another room; another
    # consumer's subscription in its own room), and with the other tenant's token
    answers: dict[str, int] = {}
    for method, template in _route_table():
        for label, values, caller in (
            ("room B", ids, client),
            ("globex", {**ids, **reachable_in_room_a}, client),
            ("tenant B", {**ids, **reachable_in_room_a}, other_tenant),
        ):
            if (label == "globex" and "{subscriptionId}" not in template) or template in _PORTAL_OWN:
                continue
            path = template.format(**values)
            response = caller.request(method, path, json={} if method in ("POST", "PATCH") else None)
            answers[f"{label}: {method} {path}"] = response.status_code

    # Then
    assert {line: status for line, status in answers.items() if status != 404} == {}
    assert _table_items(empty_stack) == before  # nothing changed


_PORTAL_OWN = {"/portal-session"}  # the session reads itself (tested above)


def _table_items(stack: LocalStack) -> str:
    dynamodb = stack.client("dynamodb")
    found = dynamodb.scan(TableName=stack.output("TableName"))["Items"]
    kept = [item for item in found if item["SK"]["S"] != "RATE"]  # the tenants' request rate
    return json.dumps(sorted(kept, key=lambda item: (item["PK"]["S"], item["SK"]["S"])), sort_keys=True)


def test_an_expired_or_revoked_portal_token_answers_401(tenant_a: ApiClient, portal: dict[str, Any]) -> None:
    # Given
    room_a = portal["room_a"]
    short = _session(tenant_a, consumerId="acme", rooms=[room_a], expiresInSeconds=60)
    revoked = _as(tenant_a, short["token"])
    assert revoked.get(f"/rooms/{room_a}/subscriptions").status_code == 200

    # When
    assert tenant_a.delete(f"/portal-sessions/{short['sessionId']}").status_code == 204

    # Then: refused from the next request, though the gateway's cache still holds the token
    assert_error(revoked.get(f"/rooms/{room_a}/subscriptions"), 401, "revoked")
    assert_error(tenant_a.delete(f"/portal-sessions/ps_{'0' * 32}"), 404, "portal session")
    refused = tenant_a.post(
        "/portal-sessions", {"consumerId": "acme", "rooms": [room_a], "expiresInSeconds": 90_000}
    )
    assert_error(refused, 422, "expiresInSeconds")


def test_an_expired_portal_token_answers_401(tenant_a: ApiClient, empty_stack: LocalStack) -> None:
    # Given: a session whose end has passed (its item's expiry moved into the past)
    room = tenant_a.create_room()
    session = _session(tenant_a, consumerId="acme", rooms=[room["id"]], expiresInSeconds=60)
    empty_stack.client("dynamodb").update_item(
        TableName=empty_stack.output("TableName"),
        Key={"PK": {"S": f"PORTALSESSION#{session['sessionId']}"}, "SK": {"S": "PORTALSESSION"}},
        UpdateExpression="SET expiresAtMs = :past",
        ExpressionAttributeValues={":past": {"N": str(int(time.time() * 1000) - 1)}},
    )

    # Then
    assert_error(_as(tenant_a, session["token"]).get(f"/rooms/{room['id']}/subscriptions"), 401, "expired")


def test_a_portal_token_reveals_its_secret_and_sends_a_signed_test_event(
    tenant_a: ApiClient, webhook_servers: WebhookServers
) -> None:
    # Given: acme's endpoint, filtered to order.created, and its session
    receiver = webhook_servers(always())
    room = tenant_a.create_room()
    created = tenant_a.create_subscription(
        room["id"],
        type="PUSH",
        pushUrl=receiver.url(),
        consumerId="acme",
        eventTypes=[{"name": "order.created"}],
    )
    token = _session(tenant_a, consumerId="acme", rooms=[room["id"]])["token"]
    client = _as(tenant_a, token)
    path = f"/rooms/{room['id']}/subscriptions/{created['id']}"

    # When
    revealed = client.get(f"{path}/signing-secret")
    sent = client.post(f"{path}/test-event", {})

    # Then: the secret is the one made at create; the ping arrives signed with it, though the
    # endpoint takes order.created only, and is a message like any other
    assert revealed.status_code == 200, revealed.text
    assert revealed.json()["signingSecret"] == created["signingSecret"]
    assert sent.status_code == 202, sent.text
    (request,) = receiver.wait_for_requests(1, 30)
    assert request.json["eventType"] == "roomcast.ping"
    assert request.headers["webhook-signature"].startswith("v1,")
    assert tenant_a.get(f"/rooms/{room['id']}/messages/{sent.json()['messageId']}").status_code == 200
    # A read key does not reveal secrets; a read-only session does not either
    reader = _key(tenant_a, scopes=["read"])
    assert_error(reader.get(f"{path}/signing-secret"), 403, "manage")
    viewer = _as(tenant_a, _session(tenant_a, consumerId="acme", rooms=[room["id"]], readOnly=True)["token"])
    assert viewer.get(path).status_code == 200
    assert_error(viewer.get(f"{path}/signing-secret"), 403, "read-only")


def test_portal_settings_shape_the_page_and_its_frame_ancestors(
    tenant_a: ApiClient, anonymous: ApiClient
) -> None:
    # Given
    room = tenant_a.create_room()
    session = _session(tenant_a, consumerId="acme", rooms=[room["id"]])
    page_path = f"/portal/{session['sessionId']}"
    assert "frame-ancestors 'none'" in anonymous.get(page_path).headers["content-security-policy"]

    # When
    saved = tenant_a.request(
        "PUT",
        "/portal-settings",
        json={
            "title": "Acme webhooks",
            "logoUrl": "https://cdn.example.com/logo.svg",
            "accentColor": "#0A7D5A",
            "frameAncestors": ["https://app.example.com", "http://127.0.0.1:8123"],
        },
    )

    # Then
    assert saved.status_code == 200, saved.text
    policy = anonymous.get(page_path).headers["content-security-policy"]
    assert "frame-ancestors https://app.example.com http://127.0.0.1:8123" in policy
    assert "img-src 'self' https://cdn.example.com;" in policy
    brand = _as(tenant_a, session["token"]).get("/portal-session").json()["brand"]
    assert brand == {
        "title": "Acme webhooks",
        "logoUrl": "https://cdn.example.com/logo.svg",
        "accentColor": "#0a7d5a",
    }
    hostile = {"frameAncestors": ["https://a.example.com; script-src *"]}
    assert_error(tenant_a.request("PUT", "/portal-settings", json=hostile), 422, "frameAncestors")
    assert tenant_a.get("/portal-settings").json()["title"] == "Acme webhooks"  # nothing changed
    unknown = anonymous.get(f"/portal/ps_{'0' * 32}")
    assert unknown.status_code == 200
    assert "frame-ancestors 'none'" in unknown.headers["content-security-policy"]
