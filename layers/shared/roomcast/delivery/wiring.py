"""How a function puts together the delivery parts it uses: the publisher (every function that
reports operational events publishes them) and the endings (failover or dead letter). Each
function's dependencies module calls these once per container and hands the results to its
services, which receive only the collaborators they use."""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING

from roomcast.config import Settings, load_settings
from roomcast.dal.catalog import CatalogStore
from roomcast.dal.dead_letters import DeadLetterStore
from roomcast.dal.delivery_log import DeliveryLog
from roomcast.dal.messages import MessageStore
from roomcast.dal.outbox_queue import OutboxQueue
from roomcast.dal.ports import Catalog, LogSink, MessageRecords, Sender
from roomcast.dal.release_schedules import ReleaseSchedules
from roomcast.dal.sender import QueueAddresses
from roomcast.delivery.endings import Endings
from roomcast.delivery.operational import OperationalEvents

if TYPE_CHECKING:
    from roomcast.delivery.publishing import Publisher
    from roomcast.delivery.schema_gate import SchemaGate


def delivery_log(function_name: str) -> DeliveryLog:
    """The function's delivery log. A function makes one per container (``cache(partial(...))``
    in its dependencies module): its records are flushed per invocation."""
    return DeliveryLog(load_settings().delivery_stream, function_name)


def tables(settings: Settings) -> tuple[CatalogStore, MessageStore]:
    """The table's rooms and subscriptions, and its messages."""
    return CatalogStore(settings.table_name), MessageStore(settings.table_name)


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


def publisher(
    settings: Settings,
    catalog: Catalog,
    messages: MessageRecords,
    sender: Sender,
    log: LogSink,
    schemas: SchemaGate | None = None,
) -> Publisher:
    """The publish path; ``schemas``: the catalog's checks (the publish API's messages only)."""
    from roomcast.delivery.publishing import Publisher

    addresses = queue_addresses(settings)
    outbox = outbox_queue(settings, sender)
    return Publisher(catalog, messages, sender, addresses, log, outbox, schemas=schemas)


def operational_events(
    settings: Settings, catalog: Catalog, messages: MessageRecords, sender: Sender, log: LogSink
) -> OperationalEvents:
    @cache
    def made() -> Publisher:
        return publisher(settings, catalog, messages, sender, log)

    return OperationalEvents(catalog, made)


def reported_endings(
    settings: Settings, catalog: Catalog, messages: MessageRecords, sender: Sender, log: LogSink
) -> tuple[OperationalEvents, Endings]:
    """Endings that report to the room's operations room, and the events they report through."""
    events = operational_events(settings, catalog, messages, sender, log)
    addresses = queue_addresses(settings)
    return events, Endings(catalog, DeadLetterStore(settings.table_name), sender, addresses, log, events)
