"""What the publish routes depend on, put together once per container on first use (boto3 is
imported then, not at cold start)."""

from __future__ import annotations

from functools import cache, partial
from typing import Annotated

from aws_lambda_powertools.event_handler.depends import Depends

from publish_api.service import PublishService
from roomcast.config import load_settings
from roomcast.dal.event_types import EventTypeStore
from roomcast.dal.sender import EnvelopeSender
from roomcast.delivery import wiring
from roomcast.delivery.schema_gate import SchemaGate

delivery_log = cache(partial(wiring.delivery_log, "publish"))


@cache
def publish_service() -> PublishService:
    settings, sender = load_settings(), EnvelopeSender()
    catalog, messages = wiring.tables(settings)
    schemas = SchemaGate(EventTypeStore.sharing(catalog))
    publisher = wiring.publisher(settings, catalog, messages, sender, delivery_log(), schemas)
    events = wiring.operational_events(settings, catalog, messages, sender, delivery_log())
    return PublishService(publisher, events)


Publisher = Annotated[PublishService, Depends(publish_service)]
