"""What the pull routes depend on, made once per container on first use."""

from __future__ import annotations

from functools import cache
from typing import Annotated

from aws_lambda_powertools.event_handler.depends import Depends

from pull_api.service import PullService
from pull_api.work import PullWork
from roomcast.config import load_settings
from roomcast.delivery.log import DeliveryLog


@cache
def delivery_log() -> DeliveryLog:
    return DeliveryLog(load_settings().log_bucket, "pull")


@cache
def pull_service() -> PullService:
    from roomcast.dal.dead_letters import DeadLetterStore
    from roomcast.dal.messages import MessageStore
    from roomcast.dal.queues import QueueClient
    from roomcast.dal.repository import Repository
    from roomcast.dal.sender import EnvelopeSender
    from roomcast.delivery.endings import Destinations, Endings

    settings = load_settings()
    catalog, messages, sender = (
        Repository(settings.table_name),
        MessageStore(settings.table_name),
        EnvelopeSender(),
    )
    endings = Endings(
        subscriptions=catalog,
        messages=messages,
        dead_letters=DeadLetterStore(settings.table_name),
        sender=sender,
        destinations=Destinations(settings.push_queue_url),
        log=delivery_log(),
    )
    work = PullWork(
        catalog=catalog,
        messages=messages,
        queues=QueueClient(),
        sender=sender,
        endings=endings,
        log=delivery_log(),
    )
    return PullService(work)


Puller = Annotated[PullService, Depends(pull_service)]
