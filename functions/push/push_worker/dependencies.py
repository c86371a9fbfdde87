"""What the push function is made of, put together once per container on the first batch (boto3
is imported then, not at cold start)."""

from __future__ import annotations

from functools import cache, partial

from push_worker.admission import FlowControl
from push_worker.apply import PushApply
from push_worker.batch_catalog import BatchCatalog
from push_worker.delivery import PushDelivery
from push_worker.health import EndpointHealth
from push_worker.lanes import Lanes
from push_worker.long_waits import LongWaits
from roomcast.config import load_settings
from roomcast.dal.flow_gate import FlowStore
from roomcast.dal.sender import EnvelopeSender
from roomcast.delivery import wiring
from roomcast.domain.push_urls import PushUrlPolicy

delivery_log = cache(partial(wiring.delivery_log, "push"))


@cache
def push_delivery() -> PushDelivery:
    settings, sender = load_settings(), EnvelopeSender()
    catalog, messages = wiring.tables(settings)
    events, endings = wiring.reported_endings(settings, catalog, messages, sender, delivery_log())
    batch_catalog = BatchCatalog(catalog)
    health = EndpointHealth(catalog, batch_catalog, events, wiring.outbox_queue(settings, sender))  # probes
    addresses = wiring.queue_addresses(settings)
    outbox = wiring.outbox_queue(settings, sender)
    long_waits = None
    if settings.long_retries_on_scheduler and outbox.schedules is not None:
        long_waits = LongWaits(outbox.schedules, settings.push_queue_arn, settings.slow_push_queue_arn)
    apply = PushApply(messages, sender, addresses, endings, health, delivery_log(), long_waits=long_waits)
    flow_control = FlowControl(FlowStore(settings.table_name))
    lanes = Lanes(catalog, batch_catalog, addresses)
    policy = PushUrlPolicy(allow_loopback=settings.allow_loopback_push_urls)
    return PushDelivery(batch_catalog, messages, flow_control, health, lanes, apply, policy)
