"""Alerts end to end (docs/alerts.md): a rule on a failing endpoint, evaluated by the alerts
function on its schedule (2 s here, a minute on AWS) from the metrics; one signed notification
to a real webhook receiver when it fires and one when it resolves; a snooze holds it."""

from __future__ import annotations

import threading
import time
from datetime import UTC, datetime, timedelta
from typing import Any

from standardwebhooks.webhooks import Webhook

from tests.e2e import webhook_server
from tests.e2e.conftest import ApiClient, assert_error
from tests.e2e.webhook_server import Reply, WebhookServers, always

webhook_servers = webhook_server.webhook_servers

# The metrics' window (2 s) and the evaluation (every 2 s), and the pipeline before them.
SEEN_SECONDS = 60.0
# Evaluations enough that a repeated notification would have come.
QUIET_SECONDS = 8.0


def _publish(client: ApiClient, room_id: str, count: int) -> None:
    messages = [
        {"eventType": "order.created", "eventVersion": "1", "payload": {"n": n}} for n in range(count)
    ]
    answer = client.post(f"/rooms/{room_id}/messages/batch", {"messages": messages})
    assert answer.status_code == 200, answer.text


def _rule(room_id: str, subscription_id: str, url: str) -> dict[str, Any]:
    return {
        "name": "orders endpoint failing",
        "scope": {"roomId": room_id, "subscriptionId": subscription_id},
        "condition": {"metric": "successRate", "below": 0.9, "windowMinutes": 1, "minDeliveries": 3},
        "notify": {"webhookUrl": url},
    }


def test_a_rule_on_a_failing_endpoint_notifies_once_when_it_fires_and_once_when_it_resolves(
    tenant_a: ApiClient, tenant_b: ApiClient, webhook_servers: WebhookServers
) -> None:
    # Given: an endpoint that fails while ``failing`` is set, and an alert receiver
    failing = threading.Event()
    failing.set()
    endpoint = webhook_servers(lambda number, request: Reply(500 if failing.is_set() else 200))
    alerts = webhook_servers(always())
    room = tenant_a.create_room(deliveryAttempts=0)
    subscription = tenant_a.create_subscription(room["id"], type="PUSH", pushUrl=endpoint.url("/hook"))
    created = tenant_a.post("/alert-rules", _rule(room["id"], subscription["id"], alerts.url("/alerts")))
    assert created.status_code == 201, created.text
    rule = created.json()
    webhook = Webhook(rule["signingSecret"])

    # When: five deliveries fail
    _publish(tenant_a, room["id"], 5)
    fired = alerts.wait_for_requests(1, timeout_seconds=SEEN_SECONDS)[0]

    # Then: one signed notification that it fires, with the value measured; no repeat
    body = webhook.verify(fired.body, dict(fired.headers))
    assert (body["ruleId"], body["state"], body["value"]) == (rule["id"], "firing", 0.0)
    time.sleep(QUIET_SECONDS)
    assert len(alerts.requests) == 1
    assert tenant_a.get(f"/alert-rules/{rule['id']}").json()["state"] == "firing"
    listed = tenant_a.get("/alerts").json()
    assert [r["id"] for r in listed["firing"]] == [rule["id"]]
    assert [(e["ruleId"], e["state"]) for e in listed["recent"]] == [(rule["id"], "firing")]

    # When: snoozed for an hour, and the endpoint recovers (the window's rate goes above 0.9)
    until = (datetime.now(UTC) + timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M:%SZ")
    snoozed = tenant_a.patch(f"/alert-rules/{rule['id']}", {"snoozedUntil": until})
    assert snoozed.status_code == 200, snoozed.text
    failing.clear()
    _publish(tenant_a, room["id"], 50)
    endpoint.wait_for_requests(55, timeout_seconds=SEEN_SECONDS)
    time.sleep(QUIET_SECONDS)

    # Then: the snooze holds it: no notification
    assert len(alerts.requests) == 1

    # When: the snooze is lifted
    assert tenant_a.patch(f"/alert-rules/{rule['id']}", {"snoozedUntil": None}).status_code == 200
    resolved = alerts.wait_for_requests(2, timeout_seconds=SEEN_SECONDS)[1]

    # Then: one signed notification that it resolved
    body = webhook.verify(resolved.body, dict(resolved.headers))
    assert (body["ruleId"], body["state"]) == (rule["id"], "resolved")
    assert body["value"] >= 0.9
    time.sleep(QUIET_SECONDS)
    assert len(alerts.requests) == 2
    states = [e["state"] for e in tenant_a.get("/alerts").json()["recent"]]
    assert states == ["resolved", "firing"]

    # Then: another tenant sees none of it
    assert_error(tenant_b.get(f"/alert-rules/{rule['id']}"), 404, "not found")
    assert_error(tenant_b.patch(f"/alert-rules/{rule['id']}", {"name": "x"}), 404, "not found")
    assert tenant_b.get("/alert-rules").json()["alertRules"] == []


def test_a_bad_rule_is_refused_naming_the_field_and_changes_nothing(
    tenant_a: ApiClient, tenant_b: ApiClient, webhook_servers: WebhookServers
) -> None:
    # Given
    alerts = webhook_servers(always())
    room = tenant_a.create_room()
    subscription = tenant_a.create_subscription(room["id"], type="PULL")
    good = _rule(room["id"], subscription["id"], alerts.url("/alerts"))

    # When / Then: each mistake answers a JSON 4xx naming what is wrong
    no_threshold = {**good, "condition": {"metric": "successRate", "windowMinutes": 5}}
    assert_error(tenant_a.post("/alert-rules", no_threshold), 422, "condition")
    wrong_threshold = {**good, "condition": {"metric": "p95AttemptLatencyMs", "below": 0.5}}
    assert_error(tenant_a.post("/alert-rules", wrong_threshold), 422, "above")
    two_targets = {**good, "notify": {"webhookUrl": alerts.url("/a"), "slackUrl": alerts.url("/b")}}
    assert_error(tenant_a.post("/alert-rules", two_targets), 422, "notify")
    private = {**good, "notify": {"webhookUrl": "http://10.0.0.7/hook"}}
    assert_error(tenant_a.post("/alert-rules", private), 422, "webhookUrl")
    state_of_room = {
        **good,
        "scope": {"roomId": room["id"]},
        "condition": {"metric": "subscriptionState", "in": ["disabled"]},
    }
    assert_error(tenant_a.post("/alert-rules", state_of_room), 422, "subscriptionId")
    long_window = {**good, "condition": {**good["condition"], "windowMinutes": 2000}}
    assert_error(tenant_a.post("/alert-rules", long_window), 422, "windowMinutes")
    assert_error(tenant_b.post("/alert-rules", good), 404, "not found")
    assert tenant_a.get("/alert-rules").json()["alertRules"] == []

    # When: a good one; then bad changes to it
    rule = tenant_a.post("/alert-rules", good).json()
    assert_error(
        tenant_a.patch(f"/alert-rules/{rule['id']}", {"snoozedUntil": "tomorrow"}), 422, "snoozedUntil"
    )
    assert_error(tenant_a.patch(f"/alert-rules/{rule['id']}", {"state": "ok"}), 422, "state")
    assert_error(tenant_a.get("/alert-rules/alr_nope"), 404, "not found")

    # Then: an e-mail target is subscribed to the stack's topic (SNS; the address confirms it)
    by_email = tenant_a.post("/alert-rules", {**good, "notify": {"email": "ops@example.com"}})
    assert by_email.status_code == 201, by_email.text
    assert by_email.json()["notify"] == {"email": "ops@example.com"}

    # Then: it is as created; deleted, it is gone
    assert tenant_a.get(f"/alert-rules/{rule['id']}").json()["name"] == good["name"]
    assert tenant_a.delete(f"/alert-rules/{rule['id']}").status_code == 204
    assert_error(tenant_a.get(f"/alert-rules/{rule['id']}"), 404, "not found")
