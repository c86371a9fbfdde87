"""What the publish route depends on, made once per container on first use."""

from __future__ import annotations

from functools import cache
from typing import Annotated

from aws_lambda_powertools.event_handler.depends import Depends

from publish_api.idempotency import IdempotentPublisher, PublishCommand
from publish_api.models import PublishResponse
from publish_api.service import PublishService
from roomcast.config import load_settings
from roomcast.delivery.log import DeliveryLog


@cache
def delivery_log() -> DeliveryLog:
    return DeliveryLog(load_settings().log_bucket, "publish")


@cache
def publish_service() -> PublishService:
    from roomcast.dal.messages import MessageStore
    from roomcast.dal.repository import Repository
    from roomcast.dal.sender import EnvelopeSender
    from roomcast.delivery.endings import Destinations

    settings = load_settings()
    return PublishService(
        catalog=Repository(settings.table_name),
        messages=MessageStore(settings.table_name),
        sender=EnvelopeSender(),
        destinations=Destinations(settings.push_queue_url),
        log=delivery_log(),
    )


@cache
def idempotent_publisher() -> IdempotentPublisher:
    def publish(command: PublishCommand) -> PublishResponse:
        return PublishResponse.of(
            publish_service().publish(command.tenantId, command.roomId, command.request)
        )

    return IdempotentPublisher.build(load_settings().table_name, publish)


Publisher = Annotated[PublishService, Depends(publish_service)]
KeyedPublisher = Annotated[IdempotentPublisher, Depends(idempotent_publisher)]
