"""What the push function is made of, put together once per container on the first batch (boto3
is imported then, not at cold start)."""

from __future__ import annotations

from functools import cache

from push_worker.admission import FlowControl
from push_worker.apply import PushApply
from push_worker.batch_catalog import BatchCatalog
from push_worker.delivery import PushDelivery
from push_worker.health import EndpointHealth
from roomcast.config import load_settings
from roomcast.dal.catalog import CatalogStore
from roomcast.dal.delivery_log import DeliveryLog
from roomcast.dal.flow_gate import FlowStore
from roomcast.dal.messages import MessageStore
from roomcast.dal.sender import EnvelopeSender, QueueAddresses
from roomcast.delivery import wiring
from roomcast.domain.push_urls import PushUrlPolicy


@cache
def delivery_log() -> DeliveryLog:
    settings = load_settings()
    return DeliveryLog(settings.delivery_stream, "push")


@cache
def push_delivery() -> PushDelivery:
    settings = load_settings()
    catalog, messages = CatalogStore(settings.table_name), MessageStore(settings.table_name)
    sender, log = EnvelopeSender(), delivery_log()
    events = wiring.operational_events(settings, catalog, messages, sender, log)
    endings = wiring.endings(settings, catalog, sender, log, events)
    batch_catalog = BatchCatalog(catalog)
    health = EndpointHealth(catalog, batch_catalog, events)
    apply = PushApply(messages, sender, QueueAddresses(settings.push_queue_url), endings, health, log)
    return PushDelivery(
        batch_catalog,
        messages,
        FlowControl(FlowStore(settings.table_name)),
        health,
        apply,
        PushUrlPolicy(allow_loopback=settings.allow_loopback_push_urls),
    )
