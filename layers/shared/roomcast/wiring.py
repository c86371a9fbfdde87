"""How a function puts together the delivery parts it uses: the publisher (every function that
reports operational events publishes them) and the endings (failover or dead letter). Each
function's dependencies module calls these once per container and hands the results to its
services, which receive only the collaborators they use."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING

from roomcast.catalog.store import CatalogStore
from roomcast.dead_letters.store import DeadLetterStore
from roomcast.deliver_at.schedules import ReleaseSchedules
from roomcast.endings.endings import Endings
from roomcast.log.delivery_log import DeliveryLog
from roomcast.messages.ports import Sender
from roomcast.messages.sender import EnvelopeSender, QueueAddresses
from roomcast.messages.store import MessageStore
from roomcast.operations.events import OperationalEvents
from roomcast.ordering.numbers import KeyNumbers
from roomcast.ordering.store import OrderingKeys
from roomcast.outbox.queue import OutboxQueue
from roomcast.platform.config import Settings, load_settings
from roomcast.publishing.marks import PublishMarks

if TYPE_CHECKING:
    from roomcast.event_types.gate import SchemaGate
    from roomcast.publishing.publisher import Publisher


def delivery_log(function_name: str) -> DeliveryLog:
    """The function's delivery log. A function makes one per container (``cache(partial(...))``
    in its dependencies module): its records are flushed per invocation."""
    return DeliveryLog(load_settings().delivery_stream, function_name)


def queue_addresses(settings: Settings) -> QueueAddresses:
    """The push lanes' queues (a PULL subscription's queue is its own)."""
    return QueueAddresses(settings.push_queue_url, settings.slow_push_queue_url)


def outbox_queue(settings: Settings, sender: Sender) -> OutboxQueue:
    """The outbox's queue; with the stack's release schedules when it has them."""
    schedules = None
    if (scheduling := settings.release_scheduling) is not None:
        schedules = ReleaseSchedules(
            scheduling.group, scheduling.outbox_queue_arn, scheduling.role_arn, scheduling.dead_letter_arn
        )
    return OutboxQueue(sender, settings.outbox_queue_url, settings.outbox_settle_seconds, schedules)


@dataclass(frozen=True)
class Basics:
    """What every delivering function starts from: its settings, the envelope sender, the table's
    rooms and subscriptions and its messages, and the function's delivery log."""

    settings: Settings
    sender: EnvelopeSender
    catalog: CatalogStore
    messages: MessageStore
    log: DeliveryLog

    @classmethod
    def of(cls, log: DeliveryLog) -> Basics:
        settings = load_settings()
        return cls(
            settings,
            EnvelopeSender(),
            CatalogStore(settings.table_name),
            MessageStore(settings.table_name),
            log,
        )

    @property
    def marks(self) -> PublishMarks:
        """What publishes record of their sends (the outbox reads them too)."""
        return PublishMarks.sharing(self.messages)

    @property
    def addresses(self) -> QueueAddresses:
        return queue_addresses(self.settings)

    def outbox(self) -> OutboxQueue:
        return outbox_queue(self.settings, self.sender)

    def publisher(self, schemas: SchemaGate | None = None) -> Publisher:
        """The publish path; ``schemas``: the catalog's checks (the publish API's messages only)."""
        from roomcast.publishing.publisher import Publisher

        return Publisher(
            self.catalog,
            self.messages,
            self.sender,
            self.addresses,
            self.log,
            self.outbox(),
            schemas=schemas,
            marks=self.marks,
            numbers=KeyNumbers.sharing(self.messages),
        )

    def operational_events(self) -> OperationalEvents:
        """The room's operations-room events, published through a publisher made on first use."""
        return OperationalEvents(self.catalog, cache(self.publisher))

    def reported_endings(self) -> tuple[OperationalEvents, Endings]:
        """Endings that report to the room's operations room, and the events they report through."""
        events = self.operational_events()
        dead_letters = DeadLetterStore(self.settings.table_name)
        key_lines = OrderingKeys(self.settings.table_name)  # an ordered failover's
        return events, Endings(
            self.catalog, dead_letters, self.sender, self.addresses, self.log, events, key_lines
        )
