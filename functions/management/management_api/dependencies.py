"""Everything the management routes depend on, made once per container on first use (boto3 is
imported then, not at cold start) and injected with powertools' ``Depends``.

Route tests replace any of these through ``app.dependency_overrides``; service tests build the
services themselves with in-memory fakes.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Annotated

from aws_lambda_powertools.event_handler.depends import Depends

from management_api.dead_letters.service import DeadLettersService
from management_api.messages.service import MessagesService
from management_api.rooms.service import RoomsService
from management_api.schedule.service import ScheduleService
from management_api.signing_secrets.service import SigningSecretsService
from management_api.subscriptions.service import SubscriptionsService
from roomcast.config import load_settings
from roomcast.domain.push_urls import PushUrlPolicy

if TYPE_CHECKING:
    from roomcast.dal.dead_letters import DeadLetterStore
    from roomcast.dal.messages import MessageStore
    from roomcast.dal.queues import QueueAdmin
    from roomcast.dal.repository import Repository
    from roomcast.dal.sender import EnvelopeSender
    from roomcast.delivery.endings import Destinations
    from roomcast.delivery.log import DeliveryLog


@dataclass(frozen=True)
class Stores:
    """The management function's data access."""

    catalog: Repository
    messages: MessageStore
    dead_letters: DeadLetterStore
    queues: QueueAdmin
    sender: EnvelopeSender
    destinations: Destinations
    log: DeliveryLog


@cache
def stores() -> Stores:
    from roomcast.dal.dead_letters import DeadLetterStore
    from roomcast.dal.messages import MessageStore
    from roomcast.dal.queues import QueueAdmin
    from roomcast.dal.repository import Repository
    from roomcast.dal.sender import EnvelopeSender
    from roomcast.delivery.endings import Destinations
    from roomcast.delivery.log import DeliveryLog

    settings = load_settings()
    return Stores(
        catalog=Repository(settings.table_name),
        messages=MessageStore(settings.table_name),
        dead_letters=DeadLetterStore(settings.table_name),
        queues=QueueAdmin(settings.pull_queue_prefix),
        sender=EnvelopeSender(),
        destinations=Destinations(settings.push_queue_url),
        log=DeliveryLog(settings.log_bucket, "management"),
    )


def rooms_service() -> RoomsService:
    return RoomsService(stores().catalog, stores().queues)


def subscriptions_service() -> SubscriptionsService:
    policy = PushUrlPolicy(allow_loopback=load_settings().allow_loopback_push_urls)
    return SubscriptionsService(stores().catalog, stores().queues, policy)


def messages_service() -> MessagesService:
    return MessagesService(stores().messages)


def dead_letters_service() -> DeadLettersService:
    found = stores()
    return DeadLettersService(
        catalog=found.catalog,
        dead_letters=found.dead_letters,
        messages=found.messages,
        queues=found.queues,
        sender=found.sender,
        destinations=found.destinations,
        log=found.log,
    )


def signing_secrets_service() -> SigningSecretsService:
    return SigningSecretsService(stores().catalog)


def schedule_service() -> ScheduleService:
    return ScheduleService(stores().catalog)


Rooms = Annotated[RoomsService, Depends(rooms_service)]
Subscriptions = Annotated[SubscriptionsService, Depends(subscriptions_service)]
Messages = Annotated[MessagesService, Depends(messages_service)]
DeadLetters = Annotated[DeadLettersService, Depends(dead_letters_service)]
SigningSecrets = Annotated[SigningSecretsService, Depends(signing_secrets_service)]
Schedules = Annotated[ScheduleService, Depends(schedule_service)]
