"""What the outbox function is made of, put together once per container on first use."""

from __future__ import annotations

from functools import cache

from outbox_worker.service import OutboxService
from roomcast.config import load_settings
from roomcast.dal.delivery_log import DeliveryLog
from roomcast.dal.sender import EnvelopeSender
from roomcast.delivery import wiring


@cache
def delivery_log() -> DeliveryLog:
    return wiring.delivery_log(load_settings(), "outbox")


@cache
def outbox_service() -> OutboxService:
    settings, sender = load_settings(), EnvelopeSender()
    addresses, outbox = wiring.queue_addresses(settings), wiring.outbox_queue(settings, sender)
    return OutboxService(*wiring.tables(settings), sender, addresses, delivery_log(), outbox)
