"""One webhook delivery, top-down (push_worker.plans holds the pure rules):

1. read what planning needs (``Known``): the room and subscription of the batch, the destination's
   record for a retry or a takeover;
2. plan once: ``before_request`` says ``Ready``, or what the envelope comes to without a request;
3. send when ``Ready``: a flow-control admission (or ``Hold``), the signed POST, and what its answer
   comes to (``after_answer``);
4. apply the plan in one place (push_worker.apply).

In the fast lane the request is waited for ``Lanes.budget_s`` at most (roomcast.catalog.lanes):
then the envelope comes to ``TakeOver`` and the batch goes on, while the request runs to its end in
``REQUESTS``; its answer is applied then, unless the slow lane's takeover is already due."""

from __future__ import annotations

import random
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor, TimeoutError as WaitedTooLong
from dataclasses import dataclass
from functools import partial

from push_worker.admission import Admitted, FlowControl, HeldBack
from push_worker.apply import PushApply
from push_worker.batch_catalog import BatchCatalog
from push_worker.health import EndpointHealth
from push_worker.lanes import Lanes
from push_worker.no_answer import refused_url, shaped_or_unsent
from push_worker.plans import (
    Hold,
    Known,
    Plan,
    Ready,
    TakeOver,
    after_answer,
    before_request,
    needs_record,
)
from push_worker.webhook import Outgoing, PostWebhook, outgoing_webhook, send_webhook
from roomcast.catalog import Lane, takeover_delay_ms
from roomcast.flow import held_back_delay_ms
from roomcast.log import DeliveryOutcome
from roomcast.messages import Envelope, MessageRecords
from roomcast.platform import logger, now_ms
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
    # Sends into AWS destinations (push_worker.aws_destination); None: this container has none.
    into_aws: Callable[[Envelope, Ready, int], Plan] | None = None
    clock: Callable[[], int] = now_ms
    random_fraction: Callable[[], float] = random.random

    def deliver(self, envelope: Envelope, lane: Lane = Lane.FAST) -> DeliveryOutcome:
        """``lane``: the one the envelope was received in (re-sends stay in it)."""
        plan = before_request(envelope, self.read(envelope), lane)
        if isinstance(plan, Ready):
            plan = self._send(envelope, plan, lane)
        return self.apply(envelope, plan, lane)

    def read(self, envelope: Envelope) -> Known:
        """Everything planning needs, read before it: the batch's view of the room and
        subscription (read once per batch), and the record only when ``needs_record`` says so."""
        now, found = self.clock(), self.batch_catalog.of(envelope)
        record = None
        if needs_record(envelope, now, found):
            record = self.messages.get_delivery(
                envelope.tenant_id, envelope.message_id, envelope.subscription_id
            )
        return Known(now, found, self.lanes.has_slow_lane, record)

    def _send(self, envelope: Envelope, ready: Ready, lane: Lane) -> Plan:
        """Admitted by flow control (else held back), the request, and what its answer comes to."""
        admission = self.flow_control.admit(ready.subscription)
        if isinstance(admission, HeldBack):
            wait_ms = held_back_delay_ms(admission.wait_ms, envelope.holds, self.random_fraction())
            return Hold(wait_ms, f"held back by {admission.reason}")
        return self._attempt(envelope, ready, admission, lane)

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
        if subscription.destination is not None and self.into_aws is not None:
            return self.into_aws(envelope, attempt, started)
        shape = partial(outgoing_webhook, envelope, subscription)
        outgoing = shaped_or_unsent(shape, envelope, attempt, started, self.random_fraction())
        if not isinstance(outgoing, Outgoing):
            return outgoing
        try:
            result = send_webhook(self.post, outgoing, envelope, subscription, self.push_url_policy, started)
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
