"""Recovery probes (roomcast.catalog.recovery): a subscription disabled automatically is probed with
a signed ``roomcast.ping`` request, one at a time with backoff, until it answers 2xx (re-enabled,
``subscription.enabled`` to the operations room), someone re-enables or deletes it, or its
``recoveryProbes`` is turned off.

Each probe first sends the next one (due after the backoff), then claims its own attempt on the
subscription (so that at most one probe of an attempt is made), then probes: a crash anywhere
leaves the chain going, a duplicate task probes nothing twice."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from enum import StrEnum

from roomcast.catalog import (
    RECOVERED,
    Catalog,
    Subscription,
    ping_body,
    probe_delay_ms,
    probe_message_id,
    probing,
)
from roomcast.operations import SUBSCRIPTION_ENABLED, OperationalEvents
from roomcast.outbox import OutboxQueue, Probe
from roomcast.platform import Conflict, NotFound, logger, now_iso, now_ms
from roomcast.webhooks import (
    AnswerClass,
    HttpResult,
    PostWebhook,
    PushUrlPolicy,
    PushUrlRejected,
    classify,
    post_signed,
    post_webhook,
)

# A probe received up to this long before its due time is made (SQS delays are whole seconds).
_DUE_TOLERANCE_MS = 1_000


class ProbeOutcome(StrEnum):
    WAITING = "waiting"  # came back early: sent on
    STOPPED = "stopped"  # nothing to probe (re-enabled, deleted, probes off, another chain, taken)
    FAILED = "failed"  # the endpoint still fails: the next probe is on its way
    RECOVERED = "recovered"  # 2xx: re-enabled


@dataclass
class ProbeService:
    catalog: Catalog
    outbox: OutboxQueue
    events: OperationalEvents | None
    policy: PushUrlPolicy
    post: PostWebhook = post_webhook
    clock: Callable[[], int] = now_ms

    def probe(self, task: Probe) -> ProbeOutcome:
        now = self.clock()
        if task.due_at_ms > now + _DUE_TOLERANCE_MS:
            self.outbox.later(task, now)
            return ProbeOutcome.WAITING
        try:
            subscription = self.catalog.get_subscription(task.tenant_id, task.room_id, task.subscription_id)
        except NotFound:
            return ProbeOutcome.STOPPED
        if not probing(subscription) or subscription.probing_since_ms != task.chain_ms:
            return ProbeOutcome.STOPPED
        after = task.attempt + 1
        self.outbox.later(replace(task, attempt=after, due_at_ms=now + probe_delay_ms(after)), now)
        if not self.catalog.claim_probe(subscription, task.chain_ms, task.attempt):
            return ProbeOutcome.STOPPED
        result = self._ping(subscription, task.attempt, now)
        if classify(result.status) is not AnswerClass.DELIVERED:
            logger.info(
                "recovery probe failed",
                extra={"subscriptionId": subscription.id, "probe": task.attempt, "status": result.status},
            )
            return ProbeOutcome.FAILED
        self._enable(subscription)
        return ProbeOutcome.RECOVERED

    def _ping(self, subscription: Subscription, attempt: int, now: int) -> HttpResult:
        body = ping_body(subscription, attempt, now)
        message_id = probe_message_id(subscription.id, subscription.probing_since_ms or 0, attempt)
        try:
            return post_signed(self.post, subscription, message_id, message_id, body, self.policy, now)
        except PushUrlRejected as refused:  # tried again at the next probe
            return HttpResult(None, None, str(refused), 0, "")

    def _enable(self, subscription: Subscription) -> None:
        """Active again, its health marks cleared; the operations room hears of it."""
        enabled = replace(subscription.reenabled(), updated_at=now_iso())
        try:
            self.catalog.replace_subscription(enabled, expected_updated_at=subscription.updated_at)
        except Conflict:  # changed meanwhile (an operator): theirs stands
            logger.warning(
                "a recovered subscription changed meanwhile", extra={"subscriptionId": subscription.id}
            )
            return
        if self.events is not None:
            self.events.subscription(
                SUBSCRIPTION_ENABLED, subscription.tenant_id, subscription.room_id, subscription.id, RECOVERED
            )
