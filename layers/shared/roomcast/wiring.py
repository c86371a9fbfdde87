"""How a function puts together the delivery parts it uses: the publisher (every function that
reports operational events publishes them) and the endings (failover or dead letter). Each
function's dependencies module calls these once per container and hands the results to its
services, which receive only the collaborators they use."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING

from roomcast.platform import Settings, load_settings

# What this puts together is imported where it is made: importing the wiring (an API function's
# handler does, for its tenant throttle) loads no store, so no AWS client, before a request.
if TYPE_CHECKING:
    from roomcast.api import TenantThrottle
    from roomcast.catalog import CatalogTable
    from roomcast.endings import Endings
    from roomcast.event_types import SchemaGate
    from roomcast.log import DeliveryLog
    from roomcast.messages import EnvelopeSender, MessageTable, QueueAddresses, Sender
    from roomcast.operations import OperationalEvents
    from roomcast.outbox import OutboxQueue
    from roomcast.publishing import Publisher, PublishMarks


def delivery_log(function_name: str) -> DeliveryLog:
    """The function's delivery log. A function makes one per container (``cache(partial(...))``
    in its dependencies module): its records are flushed per invocation."""
    from roomcast.log import DeliveryLog

    return DeliveryLog(load_settings().delivery_stream, function_name)


def queue_addresses(settings: Settings) -> QueueAddresses:
    """The push lanes' queues (a PULL subscription's queue is its own)."""
    from roomcast.messages import QueueAddresses

    return QueueAddresses(settings.push_queue_url, settings.slow_push_queue_url)


def outbox_queue(settings: Settings, sender: Sender) -> OutboxQueue:
    """The outbox's queue; with the stack's release schedules when it has them."""
    from roomcast.outbox import OutboxQueue, ReleaseSchedules

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
    catalog: CatalogTable
    messages: MessageTable
    log: DeliveryLog

    @classmethod
    def of(cls, log: DeliveryLog) -> Basics:
        from roomcast.catalog import CatalogTable
        from roomcast.messages import EnvelopeSender, MessageTable

        settings = load_settings()
        return cls(
            settings,
            EnvelopeSender(),
            CatalogTable(settings.table_name),
            MessageTable(settings.table_name),
            log,
        )

    @property
    def marks(self) -> PublishMarks:
        """What publishes record of their sends (the outbox reads them too)."""
        from roomcast.publishing import PublishMarks

        return PublishMarks.sharing(self.messages)

    @property
    def addresses(self) -> QueueAddresses:
        return queue_addresses(self.settings)

    def outbox(self) -> OutboxQueue:
        return outbox_queue(self.settings, self.sender)

    def publisher(self, schemas: SchemaGate | None = None) -> Publisher:
        """The publish path; ``schemas``: the catalog's checks (the publish API's messages only)."""
        from roomcast.ordering import KeyNumbers
        from roomcast.publishing import Publisher

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
        from roomcast.operations import OperationalEvents

        return OperationalEvents(self.catalog, cache(self.publisher))

    def reported_endings(self) -> tuple[OperationalEvents, Endings]:
        """Endings that report to the room's operations room, and the events they report through."""
        from roomcast.dead_letters import DeadLetterTable
        from roomcast.endings import Endings
        from roomcast.ordering import OrderingKeys

        events = self.operational_events()
        dead_letters = DeadLetterTable(self.settings.table_name)
        key_lines = OrderingKeys(self.settings.table_name)  # an ordered failover's
        return events, Endings(
            self.catalog, dead_letters, self.sender, self.addresses, self.log, events, key_lines
        )


@cache
def tenant_throttle() -> TenantThrottle | None:
    """An API function's tenant throttle, made on the first request that has a tenant (None: no
    limit configured); one per container."""
    settings = load_settings()
    if settings.tenant_requests_per_second <= 0:
        return None
    from roomcast.api import TenantThrottle
    from roomcast.flow import FlowTable, RequestLimit

    limit = RequestLimit(settings.tenant_requests_per_second, settings.tenant_request_burst)
    return TenantThrottle(FlowTable(settings.table_name), limit)
