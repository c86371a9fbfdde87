"""One webhook delivery, top-down: decide what the envelope comes to (push_worker.plans, pure),
reading only what that needs — the room and subscription of the batch, the record of a retry,
a flow-control admission — make the signed POST when it is time, and apply the plan in one place
(push_worker.apply).

In the fast lane the request is waited for ``Lanes.budget_s`` at most (roomcast.catalog.lanes):
then the envelope comes to ``TakeOver`` and the batch goes on, while the request runs to its end in
``REQUESTS``; its answer is applied then, unless the slow lane's takeover is already due."""

from __future__ import annotations

import random
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor, TimeoutError as WaitedTooLong
from dataclasses import dataclass

from push_worker.admission import Admitted, FlowControl, HeldBack
from push_worker.apply import PushApply
from push_worker.batch_catalog import BatchCatalog
from push_worker.health import EndpointHealth
from push_worker.lanes import Lanes
from push_worker.plans import (
    Clear,
    Hold,
    Plan,
    Ready,
    Skip,
    TakeOver,
    ToSlowLane,
    after_answer,
    by_status,
    on_receipt,
    present,
    refused_url,
)
from push_worker.webhook import PostWebhook, send_webhook
from roomcast.catalog import Lane, takeover_delay_ms
from roomcast.flow import held_back_delay_ms
from roomcast.log import DeliveryOutcome
from roomcast.messages import TERMINAL_STATUSES, DeliveryStatus, Envelope, MessageRecords
from roomcast.platform import iso_from_ms, logger, now_ms
from roomcast.webhooks import AnswerClass, PushUrlPolicy, PushUrlRejected, classify, post_webhook

# The webhook requests of this container. A request the fast lane stopped waiting for keeps its
# thread until it ends (its timeout, 30 s at most), so there are many more than a batch's ten.
REQUESTS = ThreadPoolExecutor(max_workers=100, thread_name_prefix="webhook")


@dataclass
class PushDelivery:
    batch_catalog: BatchCatalog
    messages: MessageRecords
    flow_control: FlowControl
    health: EndpointHealth
    lanes: Lanes
    apply: PushApply
    push_url_policy: PushUrlPolicy
    post: PostWebhook = post_webhook
    clock: Callable[[], int] = now_ms
    random_fraction: Callable[[], float] = random.random

    def deliver(self, envelope: Envelope, lane: Lane = Lane.FAST) -> DeliveryOutcome:
        """``lane``: the one the envelope was received in (re-sends stay in it)."""
        return self.apply(envelope, self.plan(envelope, lane), lane)

    def plan(self, envelope: Envelope, lane: Lane = Lane.FAST) -> Plan:
        early = on_receipt(envelope, self.clock())
        if early is not None:
            return early
        found = present(envelope, self.batch_catalog.of(envelope))
        if isinstance(found, Clear):
            return found
        if (envelope.attempt > 0 or envelope.takeover_of_ms) and self._superseded(envelope):
            return Skip()
        ready = by_status(envelope, found)
        if not isinstance(ready, Ready):
            return ready
        if self.lanes.moves(ready.subscription, lane):
            return ToSlowLane()
        admission = self.flow_control.admit(ready.subscription)
        if isinstance(admission, HeldBack):
            wait_ms = held_back_delay_ms(admission.wait_ms, envelope.holds, self.random_fraction())
            return Hold(wait_ms, f"held back by {admission.reason}")
        return self._attempt(envelope, ready, admission, lane)

    def _superseded(self, envelope: Envelope) -> bool:
        """A retry (or a takeover) whose record has moved on: finished meanwhile (a duplicate, or
        the answer of the request taken over), or made due at another time by a retry-now. One
        read, for retries and takeovers only (first attempts cost nothing)."""
        record = self.messages.get_delivery(envelope.tenant_id, envelope.message_id, envelope.subscription_id)
        if record is None:
            return False
        if record.status in TERMINAL_STATUSES:
            return True
        due = iso_from_ms(envelope.due_at_ms)
        return record.status is DeliveryStatus.RETRYING and record.next_attempt_at not in (None, due)

    def _attempt(self, envelope: Envelope, attempt: Ready, admission: Admitted, lane: Lane) -> Plan:
        """The request, waited for at most the lane's budget (a request whose own timeout is no
        longer ends within it anyway); the admission is held until the request ends."""
        started, subscription = self.clock(), attempt.subscription
        timeout_ms = subscription.request_timeout_ms
        budget_s = self.lanes.budget_s(lane)
        if budget_s is None or timeout_ms <= budget_s * 1000:
            try:
                return self._request(envelope, attempt, started)
            finally:
                admission.release()
        request = REQUESTS.submit(self._request, envelope, attempt, started)
        request.add_done_callback(lambda _ended: admission.release())
        try:
            return request.result(timeout=budget_s)
        except WaitedTooLong:
            self.lanes.mark_slow(subscription)
            now = self.clock()
            delay_ms = takeover_delay_ms(started, timeout_ms, now)
            request.add_done_callback(lambda ended: self._late(envelope, ended, now + delay_ms))
            return TakeOver(started, delay_ms)

    def _request(self, envelope: Envelope, attempt: Ready, started: int) -> Plan:
        subscription = attempt.subscription
        try:
            result = send_webhook(self.post, envelope, subscription, self.push_url_policy, started)
        except PushUrlRejected as refused:
            return refused_url(envelope, attempt, f"push URL refused: {refused}", started)
        finished = self.clock()
        if result.unknown_control is not None:  # ignored, as documented: the receiver may have mistyped
            logger.warning(
                "unknown webhook-delivery value ignored",
                extra={"subscriptionId": subscription.id, "value": result.unknown_control},
            )
        self.lanes.answered(subscription, result.latency_ms)
        self.health.observe(subscription, classify(result.status) is AnswerClass.DELIVERED, finished)
        return after_answer(envelope, attempt, result, started, finished, self.random_fraction())

    def _late(self, envelope: Envelope, ended: Future[Plan], takeover_due_ms: int) -> None:
        """The answer of a request the fast lane stopped waiting for: applied (its records written
        now, not with a batch) unless the slow lane's takeover is due by now."""
        if self.clock() >= takeover_due_ms:
            logger.warning(
                "late webhook answer left to the slow lane", extra={"messageId": envelope.message_id}
            )
            return
        try:
            self.apply(envelope, ended.result(), Lane.SLOW)  # its endpoint is marked slow now
            self.apply.finish_batch()
        except Exception:  # the takeover makes the attempt again: a duplicate at worst
            logger.exception(
                "could not apply a late webhook answer", extra={"messageId": envelope.message_id}
            )
