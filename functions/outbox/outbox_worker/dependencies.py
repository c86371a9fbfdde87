"""What the outbox function is made of, put together once per container on first use."""

from __future__ import annotations

from functools import cache

from outbox_worker.service import OutboxService
from roomcast.config import load_settings
from roomcast.dal.catalog import CatalogStore
from roomcast.dal.delivery_log import DeliveryLog
from roomcast.dal.messages import MessageStore
from roomcast.dal.sender import EnvelopeSender, QueueAddresses
from roomcast.delivery import wiring


@cache
def delivery_log() -> DeliveryLog:
    settings = load_settings()
    return DeliveryLog(settings.delivery_stream, "outbox")


@cache
def outbox_service() -> OutboxService:
    settings = load_settings()
    sender = EnvelopeSender()
    return OutboxService(
        CatalogStore(settings.table_name),
        MessageStore(settings.table_name),
        sender,
        QueueAddresses(settings.push_queue_url),
        delivery_log(),
        wiring.outbox_queue(settings, sender),
    )
