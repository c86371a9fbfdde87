"""What the publish route depends on, made once per container on first use."""

from __future__ import annotations

from functools import cache
from typing import Annotated

from aws_lambda_powertools.event_handler.depends import Depends

from publish_api.idempotency import IdempotentPublisher, PublishCommand
from publish_api.models import PublishResponse
from publish_api.service import PublishService
from roomcast.config import load_settings
from roomcast.dal.stores import Stores


@cache
def stores() -> Stores:
    return Stores.for_function("publish")


def publish_service() -> PublishService:
    st = stores()
    return PublishService(st.catalog, st.messages, st.sender, st.destinations, st.log, st.outbox)


@cache
def idempotent_publisher() -> IdempotentPublisher:
    def publish(command: PublishCommand) -> PublishResponse:
        message = publish_service().publish(
            command.tenantId, command.roomId, command.request, command.idempotencyKey
        )
        return PublishResponse.of(message, messageId=message.id)

    return IdempotentPublisher.build(load_settings().table_name, publish)


Publisher = Annotated[PublishService, Depends(publish_service)]
