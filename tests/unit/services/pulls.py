"""A room with one PULL subscription and the pull service over in-memory fakes (the unit tests of
pull, ack, nack and extend)."""

from __future__ import annotations

from dataclasses import dataclass, field

from pull_api.acknowledging import ExtendResult
from pull_api.service import PullService
from pull_api.work import PullWork
from roomcast.catalog.model import Room, Subscription
from roomcast.endings.endings import Endings
from roomcast.messages.model import Message
from roomcast.messages.sender import QueueAddresses
from roomcast.pull.receipts import Receipt, ReceiptSigner
from tests.fakes import FakePullQueue
from tests.unit.services.management import PUSH_QUEUE_URL, TENANT, Management

NOW_MS = 1_795_435_200_000
SIGNER = ReceiptSigner(b"unit-test-receipt-key-of-32-bytes")


@dataclass
class Pull:
    """A room with one PULL subscription, and the pull service over the same fakes."""

    management: Management = field(default_factory=Management)
    queue: FakePullQueue = field(default_factory=FakePullQueue)

    def __post_init__(self) -> None:
        self.room: Room = self.management.room()
        self.subscription: Subscription = self.management.subscription(self.room, ackWaitMs=1000)

    @property
    def service(self) -> PullService:
        m = self.management
        destinations = QueueAddresses(PUSH_QUEUE_URL)
        endings = Endings(m.catalog, m.dead_letter_store, m.sender, destinations, m.log)
        work = PullWork(
            m.catalog, m.messages, self.queue, m.sender, endings, m.log, SIGNER, clock=lambda: NOW_MS
        )
        return PullService(work)

    def handed_out(self, number: int, *, attempt: int = 0, subscription_id: str | None = None) -> str:
        """The receipt of a message handed out (its handle in flight, unless another subscription's)."""
        handle = f"handle-{number}"
        receipt = Receipt(
            subscription_id or self.subscription.id,
            f"msg_{number:032x}",
            attempt,
            handle,
            None,
            f"order-{number}",
            self.room.id,
            "2026-11-22T10:00:00.000Z",
        )
        if subscription_id is None:
            self.queue.in_flight[handle] = 1
        return SIGNER.encode(receipt, TENANT)

    def stale(self, number: int) -> str:
        """The receipt of a message handed out and acked since: SQS no longer knows its handle."""
        receipt = self.handed_out(number)
        del self.queue.in_flight[f"handle-{number}"]
        return receipt

    def extend(
        self, receipts: list[str], ack_wait_ms: int, *, tenant_id: str = TENANT, subscription_id: str = ""
    ) -> ExtendResult:
        return self.service.extend(
            tenant_id, self.room.id, subscription_id or self.subscription.id, receipts, ack_wait_ms
        )


def message_of(pull: Pull, number: int) -> Message:
    return Message(
        f"msg_{number:032x}",
        TENANT,
        pull.room.id,
        "order.created",
        "1",
        f"order-{number}",
        {"n": number},
        "2026-11-22T10:00:00.000Z",
        NOW_MS - 10_000,
        None,
        (pull.subscription.id,),
    )
