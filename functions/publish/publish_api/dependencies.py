"""What the publish routes depend on, put together once per container on first use (boto3 is
imported then, not at cold start)."""

from __future__ import annotations

from functools import cache, partial
from typing import Annotated

from aws_lambda_powertools.event_handler.depends import Depends

from publish_api.service import PublishService
from roomcast.config import load_settings
from roomcast.dal.sender import EnvelopeSender
from roomcast.delivery import wiring

delivery_log = cache(partial(wiring.delivery_log, "publish"))


@cache
def publish_service() -> PublishService:
    settings = load_settings()
    return PublishService(
        wiring.publisher(settings, *wiring.tables(settings), EnvelopeSender(), delivery_log())
    )


Publisher = Annotated[PublishService, Depends(publish_service)]
