"""The outbox function's own queue: tasks for later (roomcast.domain.outbox_tasks)."""

from __future__ import annotations

from dataclasses import dataclass

from roomcast.dal.ports import Sender
from roomcast.dal.sender import SQS_MAX_DELAY_SECONDS, Outgoing
from roomcast.domain.outbox_tasks import OutboxTask


@dataclass(frozen=True)
class OutboxQueue:
    sender: Sender
    queue_url: str
    # How long a publish check or a late sweep waits (template: OutboxSettleSeconds).
    settle_seconds: int

    def now(self, task: OutboxTask) -> None:
        """Send a task to be done at once (raises when SQS refuses it)."""
        self.sender.send([Outgoing(self.queue_url, task.to_json(), 0)])

    def after_settling(self, task: OutboxTask) -> None:
        """Send a task to be done once every request running now has ended."""
        delay = min(self.settle_seconds, SQS_MAX_DELAY_SECONDS)
        self.sender.send([Outgoing(self.queue_url, task.to_json(), delay)])
