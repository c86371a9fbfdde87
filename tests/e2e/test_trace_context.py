"""W3C Trace Context end to end: a publish's ``traceparent`` reaches its webhook (a header) and its
PULL message (a field); one that is not valid is ignored, never refused."""

from __future__ import annotations

from tests.e2e import webhook_server
from tests.e2e.conftest import ApiClient
from tests.e2e.test_publish_and_pull import pull
from tests.e2e.webhook_server import WebhookServers, always

webhook_servers = webhook_server.webhook_servers

TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"


def test_a_publishs_traceparent_reaches_its_webhook_and_its_pull_message(
    tenant_a: ApiClient, webhook_servers: WebhookServers
) -> None:
    # Given: a PUSH and a PULL subscription
    server = webhook_servers(always())
    room = tenant_a.create_room()
    tenant_a.create_subscription(room["id"], type="PUSH", pushUrl=server.url("/hook"))
    queue = tenant_a.create_subscription(room["id"], type="PULL")
    body = {"eventType": "order.created", "eventVersion": "1", "payload": {"orderId": 1}}

    # When: one publish with a trace context, one with a malformed one
    traced = tenant_a.post(f"/rooms/{room['id']}/messages", body, headers={"traceparent": TRACEPARENT})
    odd = tenant_a.post(f"/rooms/{room['id']}/messages", body, headers={"traceparent": "00-nope"})

    # Then: both published; the webhook and the pulled message carry the valid one only
    assert (traced.status_code, odd.status_code) == (202, 202)
    posts = server.wait_for_requests(2, timeout_seconds=30)
    by_message = {p.headers["webhook-id"]: p.headers.get("traceparent") for p in posts}
    assert by_message == {traced.json()["messageId"]: TRACEPARENT, odd.json()["messageId"]: None}
    pulled = pull(tenant_a, room["id"], queue["id"], maxMessages=10, waitSeconds=5)
    assert {m["messageId"]: m.get("traceparent") for m in pulled} == {
        traced.json()["messageId"]: TRACEPARENT,
        odd.json()["messageId"]: None,
    }
