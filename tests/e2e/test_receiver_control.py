"""A receiver steers its delivery with the ``webhook-delivery`` answer header, over real HTTP on
the local stack: one endpoint answers 503 with ``abort`` (the message ends ``aborted`` after that
one attempt, nothing retried), another 200 with ``disable`` (delivered, and its subscription
disabled). The table of signals is docs/delivery-semantics.md; each case at the lowest layer is
tests/unit/services/test_receiver_control.py."""

from __future__ import annotations

from typing import Any

from roomcast_dev.webhook_receiver import Reply, WebhookReceiver, always
from tests.e2e.conftest import ApiClient, wait_until


def _delivery(client: ApiClient, room_id: str, message_id: str, subscription_id: str) -> dict[str, Any]:
    status = client.get(f"/rooms/{room_id}/messages/{message_id}").json()
    return next(d for d in status["deliveries"] if d["subscriptionId"] == subscription_id)


def test_abort_ends_a_message_after_one_attempt_and_disable_disables_the_subscription(
    tenant_a: ApiClient,
) -> None:
    aborting = WebhookReceiver(always(Reply(503, headers={"webhook-delivery": "abort"})))
    disabling = WebhookReceiver(always(Reply(200, headers={"webhook-delivery": "Disable"})))
    with aborting, disabling:
        # Given: a room retrying fast, one subscription per receiver
        room = tenant_a.create_room(deliveryDelayMs=200, deliveryAttempts=3)
        aborted = tenant_a.create_subscription(room["id"], type="PUSH", pushUrl=aborting.url("/hook"))
        disabled = tenant_a.create_subscription(room["id"], type="PUSH", pushUrl=disabling.url("/hook"))

        # When
        published = tenant_a.post(
            f"/rooms/{room['id']}/messages", {"eventType": "e", "eventVersion": "1", "payload": 1}
        ).json()
        message_id = published["messageId"]

        # Then: aborted after its one attempt, no dead letter
        ended = wait_until(
            lambda: (
                (d := _delivery(tenant_a, room["id"], message_id, aborted["id"]))["status"] == "aborted" and d
            ),
            "the aborted delivery",
        )
        assert (ended["attempts"], ended["lastError"]) == (
            1,
            "HTTP 503; the endpoint aborted this message (webhook-delivery: abort)",
        )
        dead = tenant_a.get(f"/rooms/{room['id']}/subscriptions/{aborted['id']}/dead-letters").json()
        assert dead["deadLetters"] == []

        # ... and the other delivered, its subscription disabled with the receiver's reason
        subscription = wait_until(
            lambda: (
                (s := tenant_a.get(f"/rooms/{room['id']}/subscriptions/{disabled['id']}").json())["status"]
                == "disabled"
                and s
            ),
            "the disabled subscription",
        )
        assert (
            subscription["disabledReason"] == "the endpoint asked to be disabled (webhook-delivery: disable)"
        )
        assert _delivery(tenant_a, room["id"], message_id, disabled["id"])["status"] == "delivered"
        # Nothing more was sent to the aborting endpoint (the retry would have been due 200 ms later)
        assert len(aborting.requests) == 1
