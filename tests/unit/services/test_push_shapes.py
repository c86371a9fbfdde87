"""What a push delivery makes of a subscription's shaping (issue 53), with in-memory fakes and a
scripted webhook: its transformation (failing, cancelling, adding headers and a method) and its
CloudEvents format. The transformation runs in the real sandbox (V8): it is the rule under test."""

from __future__ import annotations

import json
from dataclasses import replace

from cloudevents.core.bindings.http import HTTPMessage, from_binary
from cloudevents.core.formats.json import JSONFormat

from push_worker.aws_destination import DestinationDelivery
from push_worker.delivery import PushDelivery
from roomcast.catalog.model import SubscriptionStatus
from roomcast.destinations.model import Destination, DestinationKind
from roomcast.destinations.send import DestinationMessage, SendResult
from roomcast.log.outcomes import DeliveryOutcome
from roomcast.messages.envelope import Envelope
from roomcast.messages.model import AttemptEvent, DeliveryStatus
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


class _Sender:
    """Stands in for roomcast.destinations.DestinationSender: answers each send with the next result."""

    def __init__(self, *results: SendResult) -> None:
        self.results = list(results)
        self.sent: list[DestinationMessage] = []

    def send(self, destination: Destination, message: DestinationMessage) -> SendResult:
        self.sent.append(message)
        return self.results.pop(0)


def _to_queue(push: Push, sender: _Sender, **fields: object) -> PushDelivery:
    destination = Destination(
        DestinationKind.SQS, "arn:aws:sqs:eu-west-1:111122223333:q", "arn:aws:iam::1:role/r", "x1"
    )
    push.subscription = replace(push.subscription, destination=destination, push_url=None, **fields)  # type: ignore[arg-type]
    push.management.catalog.replace_subscription(push.subscription, push.subscription.updated_at)
    service = push.service(ScriptedWebhook([]))
    into_aws = DestinationDelivery(sender, service.health, service.lanes, service.clock, lambda: 0.0)  # type: ignore[arg-type]
    return replace(service, into_aws=into_aws)


def test_a_send_into_an_aws_destination_is_delivered_or_a_failed_attempt_with_awss_code() -> None:
    # Given: one send that AWS refuses, then one that gets through
    push = Push()
    sender = _Sender(SendResult("AccessDenied", "AccessDenied: not allowed", 7), SendResult(None, None, 4))
    service = _to_queue(push, sender)

    # When
    first = service.deliver(push.envelope())
    service.apply.finish_batch()
    (retry,) = push.management.sender.sent
    assert isinstance(retry.envelope, Envelope)
    push.now_ms = retry.envelope.due_at_ms
    second = service.deliver(retry.envelope)
    service.apply.finish_batch()

    # Then: roomcast's body went as the message, and the log says what AWS said
    assert (first, second) == (DeliveryOutcome.RETRY, DeliveryOutcome.DELIVERED)
    assert json.loads(sender.sent[0].body)["payload"] == {"orderId": 1}
    record = push.management.messages.current(push.room.tenant_id, "msg_" + "1" * 32, push.subscription.id)
    assert record is not None
    assert [(a.event, a.http_status, a.error) for a in record.history] == [
        (AttemptEvent.SEND, None, "AccessDenied: not allowed"),
        (AttemptEvent.SEND, None, None),
    ]


def test_a_paused_destination_holds_its_deliveries_without_a_send() -> None:
    push = Push()
    sender = _Sender()
    service = _to_queue(push, sender, status=SubscriptionStatus.PAUSED)

    assert service.deliver(push.envelope()) is DeliveryOutcome.HELD
    assert sender.sent == []
