"""One webhook delivery, top-down: decide what the envelope comes to (push_worker.plans, pure),
reading only what that needs — the room and subscription of the batch, the record of a retry,
a flow-control admission — make the signed POST when it is time, and apply the plan in one place
(push_worker.apply)."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

from push_worker.admission import FlowControl, HeldBack
from push_worker.apply import PushApply
from push_worker.batch_catalog import BatchCatalog
from push_worker.health import EndpointHealth
from push_worker.plans import (
    Attempt,
    Clear,
    Hold,
    Plan,
    Skip,
    after_answer,
    by_status,
    on_receipt,
    present,
    refused_url,
)
from push_worker.webhook import PostWebhook, send_webhook
from roomcast.dal.ports import MessageRecords
from roomcast.domain.clock import iso_from_ms, now_ms
from roomcast.domain.envelope import Envelope
from roomcast.domain.flow_control import held_back_delay_ms
from roomcast.domain.messages import TERMINAL_STATUSES, DeliveryStatus
from roomcast.domain.outcomes import DeliveryOutcome
from roomcast.domain.push_urls import PushUrlPolicy, PushUrlRejected
from roomcast.webhooks.answers import AnswerClass, classify
from roomcast.webhooks.http import post_webhook


@dataclass
class PushDelivery:
    batch_catalog: BatchCatalog
    messages: MessageRecords
    flow_control: FlowControl
    health: EndpointHealth
    apply: PushApply
    push_url_policy: PushUrlPolicy
    post: PostWebhook = post_webhook
    clock: Callable[[], int] = now_ms
    random_fraction: Callable[[], float] = random.random

    def deliver(self, envelope: Envelope) -> DeliveryOutcome:
        return self.apply(envelope, self.plan(envelope))

    def plan(self, envelope: Envelope) -> Plan:
        early = on_receipt(envelope, self.clock())
        if early is not None:
            return early
        found = present(envelope, self.batch_catalog.of(envelope))
        if isinstance(found, Clear):
            return found
        if envelope.attempt > 0 and self._superseded(envelope):
            return Skip()
        ready = by_status(envelope, found)
        if not isinstance(ready, Attempt):
            return ready
        admission = self.flow_control.admit(ready.subscription)
        if isinstance(admission, HeldBack):
            wait_ms = held_back_delay_ms(admission.wait_ms, envelope.holds, self.random_fraction())
            return Hold(wait_ms, f"held back by {admission.reason}")
        try:
            return self._attempt(envelope, ready)
        finally:
            admission.release()

    def _superseded(self, envelope: Envelope) -> bool:
        """A retry whose record has moved on: finished meanwhile (a duplicate), or made due at
        another time by a retry-now. One read, for retries only (first attempts cost nothing)."""
        record = self.messages.get_delivery(envelope.tenant_id, envelope.message_id, envelope.subscription_id)
        if record is None:
            return False
        if record.status in TERMINAL_STATUSES:
            return True
        due = iso_from_ms(envelope.due_at_ms)
        return record.status is DeliveryStatus.RETRYING and record.next_attempt_at not in (None, due)

    def _attempt(self, envelope: Envelope, attempt: Attempt) -> Plan:
        started = self.clock()
        try:
            result = send_webhook(self.post, envelope, attempt.subscription, self.push_url_policy, started)
        except PushUrlRejected as refused:
            return refused_url(envelope, attempt, f"push URL refused: {refused}", started)
        finished = self.clock()
        self.health.observe(attempt.subscription, classify(result.status) is AnswerClass.DELIVERED, finished)
        return after_answer(envelope, attempt, result, started, finished, self.random_fraction())
