"""What the publish routes depend on, put together once per container on first use (boto3 is
imported then, not at cold start)."""

from __future__ import annotations

from dataclasses import replace
from functools import cache, partial
from typing import Annotated

from aws_lambda_powertools.event_handler.depends import Depends

from publish_api.service import PublishService
from roomcast import wiring
from roomcast.event_types import EventTypeTable, SchemaGate

delivery_log = cache(partial(wiring.delivery_log, "publish"))


@cache
def publish_service() -> PublishService:
    base = wiring.Basics.of(delivery_log())
    schemas = SchemaGate(EventTypeTable.sharing(base.catalog))
    publisher = replace(base.publisher(schemas), mark_after_answer=True)
    return PublishService(publisher, base.operational_events())


Publisher = Annotated[PublishService, Depends(publish_service)]
