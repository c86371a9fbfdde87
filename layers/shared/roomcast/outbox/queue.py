"""The outbox function's own queue: tasks for later (roomcast.outbox.tasks). A scheduled
message's release waits on it too: in hops of SQS's delay, or, past the crossover and when the
stack has one, in an EventBridge Scheduler schedule that puts it there near its time
(roomcast.deliver_at.rules)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from roomcast.deliver_at import Carrier, carrier_for, hop_delay_seconds, schedule_fires_at_ms
from roomcast.messages import SQS_MAX_DELAY_SECONDS, Outgoing, Sender, delay_seconds
from roomcast.outbox.schedules import ReleaseSchedules
from roomcast.outbox.tasks import OutboxTask, Probe, Release
from roomcast.platform import logger


@dataclass(frozen=True)
class OutboxQueue:
    sender: Sender
    queue_url: str
    # How long a publish check or a late sweep waits (template: OutboxSettleSeconds).
    settle_seconds: int
    # Long releases' schedules (None: every wait is carried by hops).
    schedules: ReleaseSchedules | None = None

    def now(self, task: OutboxTask) -> None:
        """Send a task to be done at once (raises when SQS refuses it)."""
        self.sender.send([Outgoing(self.queue_url, task.to_json(), 0)])

    def after_settling(self, task: OutboxTask) -> None:
        """Send a task to be done once every request running now has ended."""
        delay = min(self.settle_seconds, SQS_MAX_DELAY_SECONDS)
        self.sender.send([Outgoing(self.queue_url, task.to_json(), delay)])

    def later(self, task: Probe, now_ms: int) -> None:
        """Send a task that waits for its due time (at most 15 minutes a send: one that comes back
        early is sent on by its handler); raises when SQS refuses it."""
        self.sender.send([Outgoing(self.queue_url, task.to_json(), delay_seconds(task.due_at_ms, now_ms))])

    def release(self, tasks: Sequence[Release], now_ms: int) -> list[Release]:
        """Arm each release for its due time: a schedule past the crossover, else a delayed send
        (the whole seconds left, at most 15 minutes: the task comes back up to a second early, and
        is sent again if earlier still). What could
        not be armed is returned (nothing raised): the caller leaves it to the outbox."""
        hops: list[Release] = []
        failed: list[Release] = []
        for task in tasks:
            wait_ms = task.due_at_ms - now_ms
            if self.schedules is not None and carrier_for(wait_ms, True) is Carrier.SCHEDULER:
                try:
                    self.schedules.create(task, schedule_fires_at_ms(task.due_at_ms))
                except Exception:
                    logger.warning("a release schedule could not be made; hops carry it", exc_info=True)
                    hops.append(task)
            else:
                hops.append(task)
        outgoing = {
            Outgoing(self.queue_url, t.to_json(), hop_delay_seconds(t.due_at_ms, now_ms)): t for t in hops
        }
        if outgoing:
            failed += [outgoing[u.outgoing] for u in self.sender.try_send(list(outgoing))]
        return failed
