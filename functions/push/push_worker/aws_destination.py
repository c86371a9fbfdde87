"""One delivery into an AWS destination (roomcast.destinations): the envelope transformed as a
webhook's would be, roomcast's JSON body (the same one a webhook carries) sent as the customer's
role, and what AWS answered planned as a webhook's answer is (push_worker.plans): sent is
``Deliver``; any error is a failed attempt, retried on the room's schedule, dead at the end, its
AWS error code first in the attempt's error. The destination's health counts as an endpoint's."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import partial

from push_worker.health import EndpointHealth
from push_worker.lanes import Lanes
from push_worker.no_answer import shaped_or_unsent
from push_worker.plans import Deliver, Plan, Ready, after_answer
from push_worker.webhook import WebhookBody, transformed
from roomcast.destinations import DestinationMessage, DestinationSender, SendResult
from roomcast.messages import Attempt, AttemptEvent, Envelope
from roomcast.platform import iso_from_ms, now_ms
from roomcast.transformations import Transformed
from roomcast.webhooks import HttpResult


@dataclass
class DestinationDelivery:
    sender: DestinationSender
    health: EndpointHealth
    lanes: Lanes
    clock: Callable[[], int] = now_ms
    random_fraction: Callable[[], float] = random.random

    def __call__(self, envelope: Envelope, attempt: Ready, started: int) -> Plan:
        subscription = attempt.subscription
        destination = subscription.destination
        if destination is None:
            raise ValueError(f"subscription {subscription.id} has no AWS destination")
        shape = partial(transformed, envelope, subscription)
        changed = shaped_or_unsent(shape, envelope, attempt, started, self.random_fraction())
        if not isinstance(changed, Transformed):
            return changed
        body = replace(WebhookBody.of(envelope), payload=changed.payload).to_bytes().decode("utf-8")
        message = DestinationMessage(envelope.message_id, envelope.event_type, body, envelope.ordering_key)
        result = self.sender.send(destination, message)
        finished = self.clock()
        self.lanes.answered(subscription, result.latency_ms)
        self.health.observe(subscription, result.sent, finished)
        return after_send(envelope, attempt, result, started, finished, self.random_fraction())


def after_send(
    envelope: Envelope, attempt: Ready, result: SendResult, started_ms: int, finished_ms: int, fraction: float
) -> Plan:
    """Sent: delivered. Not sent: a failed attempt with AWS's error, as a webhook's network error."""
    if result.sent:
        made = Attempt(envelope.attempt, AttemptEvent.SEND, iso_from_ms(started_ms), result.latency_ms)
        return Deliver((made,), made)
    failed = HttpResult(None, None, result.error or result.error_code, result.latency_ms, "")
    return after_answer(envelope, attempt, failed, started_ms, finished_ms, fraction, AttemptEvent.SEND)
