"""What the push function is made of, put together once per container on the first batch (boto3
is imported then, not at cold start)."""

from __future__ import annotations

from functools import cache, partial

from push_worker.admission import FlowControl
from push_worker.apply import PushApply
from push_worker.aws_destination import DestinationDelivery
from push_worker.batch_catalog import BatchCatalog
from push_worker.delivery import PushDelivery
from push_worker.health import EndpointHealth
from push_worker.lanes import Lanes
from push_worker.long_waits import LongWaits
from roomcast import wiring
from roomcast.destinations import DestinationSender
from roomcast.flow import FlowTable
from roomcast.webhooks import PushUrlPolicy

delivery_log = cache(partial(wiring.delivery_log, "push"))


@cache
def push_delivery() -> PushDelivery:
    base = wiring.Basics.of(delivery_log())
    settings, catalog, messages, addresses = base.settings, base.catalog, base.messages, base.addresses
    events, endings = base.reported_endings()
    batch_catalog = BatchCatalog(catalog)
    outbox = base.outbox()
    health = EndpointHealth(catalog, batch_catalog, events, outbox)  # its probes go through the outbox
    long_waits = None
    if settings.long_retries_on_scheduler and outbox.schedules is not None:
        long_waits = LongWaits(outbox.schedules, settings.push_queue_arn, settings.slow_push_queue_arn)
    apply = PushApply(messages, base.sender, addresses, endings, health, base.log, long_waits=long_waits)
    flow_control = FlowControl(FlowTable(settings.table_name))
    lanes = Lanes(catalog, batch_catalog, addresses)
    policy = PushUrlPolicy(allow_loopback=settings.allow_loopback_push_urls)
    into_aws = DestinationDelivery(DestinationSender(), health, lanes)
    return PushDelivery(
        batch_catalog, messages, flow_control, health, lanes, apply, policy, into_aws=into_aws
    )
