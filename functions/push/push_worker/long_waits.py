"""PUSH retry waits past the crossover on an EventBridge Scheduler schedule instead of chained SQS
hops (template: LongRetriesOnScheduler, off by default; roomcast.deliver_at.rules has the
crossover). The schedule puts the envelope back on its lane's queue five minutes early; the push
function then hops it the last stretch, to the second. Tenant fairness (the fair queue's group)
does not apply to an envelope the scheduler puts back: it carries none. A schedule that cannot be
made falls back to hops: dearer, never later."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from roomcast.catalog import Lane
from roomcast.deliver_at import Carrier, carrier_for, schedule_fires_at_ms
from roomcast.messages import Envelope
from roomcast.outbox import ReleaseSchedules
from roomcast.platform import logger


def schedule_name(envelope: Envelope, due_at_ms: int) -> str:
    """One name per wait of one attempt (a retried invocation makes no second schedule)."""
    parts = (envelope.tenant_id, envelope.message_id, envelope.subscription_id, envelope.attempt, due_at_ms)
    what = "|".join(str(part) for part in parts)
    return "wait_" + hashlib.sha256(what.encode()).hexdigest()[:48]


@dataclass(frozen=True)
class LongWaits:
    schedules: ReleaseSchedules
    fast_queue_arn: str
    slow_queue_arn: str = ""

    def carry(self, envelope: Envelope, due_at_ms: int, lane: Lane, now_ms: int) -> bool:
        """Whether the wait went on a schedule (False: the caller sends it with an SQS delay)."""
        if carrier_for(due_at_ms - now_ms, True) is not Carrier.SCHEDULER:
            return False
        queue_arn = self.slow_queue_arn if lane is Lane.SLOW and self.slow_queue_arn else self.fast_queue_arn
        try:
            self.schedules.carry(
                schedule_name(envelope, due_at_ms),
                queue_arn,
                envelope.to_json(),
                schedule_fires_at_ms(due_at_ms),
                f"attempt {envelope.attempt} of {envelope.message_id} to {envelope.subscription_id}",
            )
        except Exception:
            logger.warning("a long retry wait could not be scheduled; hops carry it", exc_info=True)
            return False
        return True
