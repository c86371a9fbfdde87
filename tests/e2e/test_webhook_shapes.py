"""A receiver gets webhooks in its own shape, over real HTTP on the local stack (issue 53): a
subscription's JavaScript transformation (rename, cancel, a loop stopped by its limit while the rest
of the batch delivers, the dry run, versions and rollback), CloudEvents in both content modes
(parsed with the CNCF SDK, signed as any webhook), and the CloudEvents validation handshake whose
allowed rate becomes the subscription's. Each rule at the lowest layer: tests/unit/test_transformations.py,
tests/unit/test_cloudevents.py, tests/unit/services/test_push_shapes.py."""

from __future__ import annotations

from typing import Any

from cloudevents.core.bindings.http import HTTPMessage, from_binary, from_structured
from cloudevents.core.formats.json import JSONFormat
from standardwebhooks import Webhook

from roomcast_dev.webhook_receiver import RecordedRequest, Reply
from tests.e2e.conftest import ApiClient, wait_until
from tests.e2e.webhook_server import WebhookServers, always, webhook_servers

__all__ = ["webhook_servers"]

RENAME = "function handler(webhook) { webhook.payload = {id: webhook.payload.orderId}; return webhook; }"
LOOP_OR_CANCEL = """
function handler(webhook) {
  if (webhook.payload.loop) { while (true) {} }
  if (webhook.payload.skip) { webhook.cancel = true; }
  webhook.headers["X-Order"] = String(webhook.payload.n);
  return webhook;
}
"""


def _publish(client: ApiClient, room_id: str, payload: Any, event_type: str = "order.created") -> str:
    response = client.post(
        f"/rooms/{room_id}/messages", {"eventType": event_type, "eventVersion": "1", "payload": payload}
    )
    assert response.status_code == 202, response.text
    return str(response.json()["messageId"])


def _delivery(client: ApiClient, room_id: str, message_id: str) -> dict[str, Any]:
    status = client.get(f"/rooms/{room_id}/messages/{message_id}").json()
    (delivery,) = status["deliveries"]
    return dict(delivery)


def test_a_transformation_renames_a_field_and_the_webhook_carries_the_new_shape(
    tenant_a: ApiClient, webhook_servers: WebhookServers
) -> None:
    # Given
    server = webhook_servers()
    room = tenant_a.create_room()
    created = tenant_a.create_subscription(
        room["id"], type="PUSH", pushUrl=server.url(), transformation=RENAME
    )
    assert (created["transformation"], created["transformationVersion"]) == (RENAME, 1)

    # When
    _publish(tenant_a, room["id"], {"orderId": 1001, "secret": "x"})

    # Then: the webhook's payload is the handler's, signed as any webhook
    (request,) = server.wait_for_requests(1, timeout_seconds=20)
    assert request.json["payload"] == {"id": 1001}
    Webhook(created["signingSecret"]).verify(request.body, dict(request.headers))


def test_a_loop_is_stopped_by_its_limit_while_the_rest_of_the_batch_delivers_and_cancel_is_filtered(
    tenant_a: ApiClient, webhook_servers: WebhookServers
) -> None:
    # Given: a few attempts a second apart, so the looping message ends dead with its reason, and a
    # plain one stopped by the 50 ms wall clock on a starved machine (3 test workers on 2 cores)
    # is tried again, as a production delivery would be
    server = webhook_servers()
    room = tenant_a.create_room(deliveryAttempts=3, deliveryDelayMs=1000)
    tenant_a.create_subscription(room["id"], type="PUSH", pushUrl=server.url(), transformation=LOOP_OR_CANCEL)
    payloads = [{"n": 1}, {"n": 2, "loop": True}, {"n": 3}, {"n": 4, "skip": True}]

    # When: published together, so they reach the push function in one batch
    batch = tenant_a.post(
        f"/rooms/{room['id']}/messages/batch",
        {"messages": [{"eventType": "order.created", "eventVersion": "1", "payload": p} for p in payloads]},
    )
    assert batch.status_code in (200, 201, 207), batch.text
    ids = [result["messageId"] for result in batch.json()["results"]]

    # Then: the two plain ones arrive, with the header the handler added
    arrived = server.wait_for_requests(2, timeout_seconds=60)
    assert sorted(r.headers["x-order"] for r in arrived) == ["1", "3"]
    looped = wait_until(
        lambda: (d := _delivery(tenant_a, room["id"], ids[1]))["status"] == "dead" and d,
        "the loop's dead end",
        timeout_seconds=60,
    )
    assert looped["lastError"].startswith("transformation (version 1) ran past its 50 ms limit")
    skipped = wait_until(
        lambda: (d := _delivery(tenant_a, room["id"], ids[3]))["status"] == "filtered" and d,
        "the cancel",
        timeout_seconds=60,
    )
    assert skipped["lastError"] == "cancelled by its transformation (version 1)"
    assert len(server.requests) == 2


def test_the_dry_run_answers_the_transformed_payload_and_versions_roll_back(
    tenant_a: ApiClient, tenant_b: ApiClient, webhook_servers: WebhookServers
) -> None:
    # Given: a subscription whose transformation changed once
    server = webhook_servers()
    room = tenant_a.create_room()
    sub = tenant_a.create_subscription(room["id"], type="PUSH", pushUrl=server.url(), transformation=RENAME)
    path = f"/rooms/{room['id']}/subscriptions/{sub['id']}"
    changed = tenant_a.patch(path, {"transformation": "function handler(w) { w.cancel = true; return w; }"})
    assert changed.json()["transformationVersion"] == 2
    sample = {"eventType": "order.created", "payload": {"orderId": 7}}

    # When / Then: the dry run runs the current version
    assert tenant_a.post(f"{path}/transformation/test", sample).json()["outcome"] == "cancelled"
    # ... a rollback makes version 1 current again, and the dry run answers its payload
    rolled = tenant_a.post(f"{path}/transformation/rollback").json()
    assert (rolled["current"]["version"], rolled["previous"]["version"]) == (1, 2)
    tested = tenant_a.post(f"{path}/transformation/test", sample).json()
    assert (tested["outcome"], tested["version"], tested["payload"]) == ("transformed", 1, {"id": 7})
    # ... a candidate that throws answers its reason; nothing was sent
    candidate = {**sample, "transformation": "function handler(w) { throw new Error('no') }"}
    assert tenant_a.post(f"{path}/transformation/test", candidate).json() == {
        "outcome": "failed", "version": None, "payload": None, "url": None, "method": None,
        "headers": None, "error": "threw: Error: no",
    }  # fmt: skip
    assert server.requests == []
    # ... and another tenant sees none of it
    for response in (
        tenant_b.get(f"{path}/transformation"),
        tenant_b.post(f"{path}/transformation/test", sample),
    ):
        assert response.status_code == 404, response.text


def test_bad_transformations_and_formats_are_refused_naming_the_field(tenant_a: ApiClient) -> None:
    room = tenant_a.create_room()
    base = {"type": "PUSH", "pushUrl": "http://127.0.0.1:9/x"}
    cases = {
        "transformation": {"transformation": "function handler(w) { return w; } //" + "x" * 65536},
        "transformation ": {"transformation": "const handler = 42;"},
        "transformation  ": {"transformation": "function handler("},
        "format": {"format": "xml"},
        "cloudEventsMode": {"cloudEventsMode": "binary"},
    }
    for field, extra in cases.items():
        response = tenant_a.post(f"/rooms/{room['id']}/subscriptions", {**base, **extra})
        assert 400 <= response.status_code < 500, response.text
        named = {d["field"] for d in response.json()["error"]["details"]}
        assert f"body.{field.strip()}" in named or any(n.endswith(f".{field.strip()}") for n in named), named
    assert tenant_a.get(f"/rooms/{room['id']}/subscriptions").json()["subscriptions"] == []


def _http_message(request: RecordedRequest) -> HTTPMessage:
    return HTTPMessage(headers=dict(request.headers), body=request.body)


def test_cloudevents_in_both_modes_parse_with_the_sdk_and_stay_signed(
    tenant_a: ApiClient, webhook_servers: WebhookServers
) -> None:
    # Given
    structured_server, binary_server = webhook_servers(), webhook_servers()
    room = tenant_a.create_room()
    structured = tenant_a.create_subscription(
        room["id"], type="PUSH", pushUrl=structured_server.url(), format="cloudevents"
    )
    binary = tenant_a.create_subscription(
        room["id"], type="PUSH", pushUrl=binary_server.url(), format="cloudevents", cloudEventsMode="binary"
    )
    assert (structured["cloudEventsMode"], binary["cloudEventsMode"]) == ("structured", "binary")

    # When
    message_id = _publish(tenant_a, room["id"], {"orderId": 1, "note": "crème brûlée"})

    # Then: each receiver reads the same event with the SDK
    (structured_request,) = structured_server.wait_for_requests(1, timeout_seconds=20)
    (binary_request,) = binary_server.wait_for_requests(1, timeout_seconds=20)
    for request, created in ((structured_request, structured), (binary_request, binary)):
        reader = from_structured if request is structured_request else from_binary
        event = reader(_http_message(request), JSONFormat())
        attributes = event.get_attributes()
        assert attributes["specversion"] == "1.0"
        assert (attributes["id"], attributes["type"]) == (message_id, "order.created")
        assert attributes["source"] == f"/rooms/{room['id']}"
        assert str(attributes["subscriptionid"]) == created["id"]
        data = event.get_data()
        assert data == {"orderId": 1, "note": "crème brûlée"} or (
            isinstance(data, bytes | str) and "crème" in (data.decode() if isinstance(data, bytes) else data)
        )
        Webhook(created["signingSecret"]).verify(request.body, dict(request.headers))


def test_the_validation_handshake_consents_and_its_allowed_rate_becomes_the_subscriptions(
    tenant_a: ApiClient, webhook_servers: WebhookServers
) -> None:
    # Given: one receiver that consents at 120 a minute, one that does not answer the origin
    def consenting(number: int, request: RecordedRequest) -> Reply:
        if request.method == "OPTIONS":
            origin = request.headers["webhook-request-origin"]
            return Reply(200, {"WebHook-Allowed-Origin": origin, "WebHook-Allowed-Rate": "120"})
        return Reply(200)

    willing, unwilling = webhook_servers(consenting), webhook_servers(always(Reply(200)))
    room = tenant_a.create_room()

    # When
    created = tenant_a.create_subscription(
        room["id"], type="PUSH", pushUrl=willing.url(), format="cloudevents", validationHandshake=True
    )
    refused = tenant_a.post(
        f"/rooms/{room['id']}/subscriptions",
        {"type": "PUSH", "pushUrl": unwilling.url(), "validationHandshake": True},
    )

    # Then: 120 a minute is 2 a second; the refusal names the URL and stores nothing
    assert (created["validationHandshake"], created["rateLimitPerSecond"]) == (True, 2.0)
    (options,) = willing.requests
    assert options.method == "OPTIONS"
    assert refused.status_code == 422, refused.text
    assert refused.json()["error"]["code"] == "handshake_refused"
    assert refused.json()["error"]["details"][0]["field"] == "body.pushUrl"
    listed = tenant_a.get(f"/rooms/{room['id']}/subscriptions").json()["subscriptions"]
    assert [s["id"] for s in listed] == [created["id"]]
