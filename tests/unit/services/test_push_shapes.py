"""What a push delivery makes of a subscription's shaping (issue 53), with in-memory fakes and a
scripted webhook: its transformation (failing, cancelling, adding headers and a method) and its
CloudEvents format. The transformation runs in the real sandbox (V8): it is the rule under test."""

from __future__ import annotations

import json

from cloudevents.core.bindings.http import HTTPMessage, from_binary
from cloudevents.core.formats.json import JSONFormat

from roomcast.log.outcomes import DeliveryOutcome
from roomcast.messages.model import DeliveryStatus
from tests.unit.services.test_push_service import PUSH_URL, Push, ScriptedWebhook, answer


def _push(**fields: object) -> Push:
    push = Push()
    push.subscription = push.management.subscription(push.room, type="PUSH", pushUrl=PUSH_URL, **fields)
    return push


def test_a_failing_transformation_fails_the_attempt_with_its_reason_and_asks_nothing_of_the_endpoint() -> (
    None
):
    # Given
    push = _push(transformation="function handler(w) { return w.payload.missing.field; }")
    webhook = ScriptedWebhook([])
    service = push.service(webhook)

    # When
    outcome = service.deliver(push.envelope())
    service.apply.finish_batch()

    # Then: retried as a network error is, with the reason; no request; the endpoint's health untouched
    assert outcome is DeliveryOutcome.RETRY
    status = push.status()
    assert status is not None
    assert status[:2] == (DeliveryStatus.RETRYING, 1)
    assert status[2] is not None
    assert status[2].startswith("transformation (version 1) threw: TypeError:")
    assert webhook.posted == []
    subscription = push.management.catalog.get_subscription(
        push.room.tenant_id, push.room.id, push.subscription.id
    )
    assert subscription.failing_since_ms is None


def test_a_cancelling_transformation_ends_the_delivery_filtered_without_a_request() -> None:
    # Given
    push = _push(transformation="function handler(w) { w.cancel = w.payload.orderId === 1; return w; }")
    webhook = ScriptedWebhook([])

    # When
    outcome = push.service(webhook).deliver(push.envelope())

    # Then
    assert outcome is DeliveryOutcome.FILTERED
    assert push.status() == (DeliveryStatus.FILTERED, 0, "cancelled by its transformation (version 1)")
    assert push.management.log.events() == ["filtered"]
    assert webhook.posted == []


def test_a_transformations_payload_headers_and_method_make_the_request_and_roomcasts_headers_stay() -> None:
    # Given
    source = """function handler(w) {
      w.payload = {id: w.payload.orderId}; w.headers["X-Tenant-Trace"] = "t1"; w.method = "PUT"; return w;
    }"""
    push = _push(transformation=source)
    webhook = ScriptedWebhook([answer(200)])

    # When
    outcome = push.service(webhook).deliver(push.envelope())

    # Then
    assert outcome is DeliveryOutcome.DELIVERED
    (posted,) = webhook.posted
    assert json.loads(posted["body"])["payload"] == {"id": 1}
    assert (posted["method"], posted["headers"]["X-Tenant-Trace"]) == ("PUT", "t1")
    assert posted["headers"]["webhook-id"] == "msg_" + "1" * 32


def test_a_binary_cloudevent_carries_the_payload_as_its_body_and_its_attributes_as_headers() -> None:
    # Given
    push = _push(format="cloudevents", cloudEventsMode="binary")
    webhook = ScriptedWebhook([answer(200)])

    # When
    push.service(webhook).deliver(push.envelope(attempt=0))

    # Then
    (posted,) = webhook.posted
    assert json.loads(posted["body"]) == {"orderId": 1}
    assert posted["headers"]["content-type"] == "application/json"
    event = from_binary(HTTPMessage(headers=posted["headers"], body=posted["body"]), JSONFormat())
    attributes = event.get_attributes()
    assert (attributes["type"], attributes["source"]) == ("order.created", f"/rooms/{push.room.id}")
    assert (attributes["correlationid"], str(attributes["attempt"])) == ("order-1", "0")
    assert "webhook-signature" in posted["headers"]
