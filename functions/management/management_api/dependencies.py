"""Everything the management routes depend on, made once per container on first use (boto3 is
imported then, not at cold start) and injected with powertools' ``Depends``.

Each service's module (and the data access it needs) is imported by its factory, on the first
request of a route that needs it: a cold start pays only for its own route's service
(docs/decisions/0008-cold-start.md).

Route tests replace any of these through ``app.dependency_overrides``; service tests build the
services themselves with in-memory fakes.
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING, Annotated

from aws_lambda_powertools.event_handler.depends import Depends

if TYPE_CHECKING:
    from management_api.api_keys.service import ApiKeysService
    from management_api.dead_letters.service import DeadLettersService
    from management_api.deliveries.service import DeliveriesService
    from management_api.messages.service import MessagesService
    from management_api.rooms.service import RoomsService
    from management_api.schedule.service import ScheduleService
    from management_api.signing_secrets.service import SigningSecretsService
    from management_api.subscriptions.service import SubscriptionsService
    from roomcast.api.cursors import ListCursors
    from roomcast.dal.stores import Stores
else:
    # powertools reads only the Depends of an annotation: the classes are for the type checker.
    RoomsService = SubscriptionsService = MessagesService = DeliveriesService = object
    DeadLettersService = SigningSecretsService = ScheduleService = ApiKeysService = object
    ListCursors = object


@cache
def stores() -> Stores:
    from roomcast.dal.stores import Stores

    return Stores.for_function("management")


def rooms_service() -> RoomsService:
    from management_api.rooms.service import RoomsService

    return RoomsService(stores().catalog, stores().queue_admin, stores().outbox)


def subscriptions_service() -> SubscriptionsService:
    from management_api.subscriptions.service import SubscriptionsService
    from roomcast.config import load_settings
    from roomcast.domain.push_urls import PushUrlPolicy

    policy = PushUrlPolicy(allow_loopback=load_settings().allow_loopback_push_urls)
    return SubscriptionsService(stores().catalog, stores().queue_admin, stores().outbox, policy)


def messages_service() -> MessagesService:
    from management_api.messages.service import MessagesService

    return MessagesService(stores().messages, stores().catalog)


def deliveries_service() -> DeliveriesService:
    from management_api.deliveries.service import DeliveriesService

    return DeliveriesService.of(stores())


def dead_letters_service() -> DeadLettersService:
    from management_api.dead_letters.service import DeadLettersService

    return DeadLettersService.of(stores())


def signing_secrets_service() -> SigningSecretsService:
    from management_api.signing_secrets.service import SigningSecretsService

    return SigningSecretsService(stores().catalog)


def schedule_service() -> ScheduleService:
    from management_api.schedule.service import ScheduleService

    return ScheduleService(stores().catalog)


def api_keys_service() -> ApiKeysService:
    from management_api.api_keys.service import ApiKeysService
    from roomcast.dal.api_keys import ApiKeyStore

    return ApiKeysService(ApiKeyStore.sharing(stores().catalog))


@cache
def list_cursors() -> ListCursors:
    """The sealer of every list's cursors; its key (Secrets Manager) is read on the first cursor a
    list takes or hands out, not before (docs/decisions/0027-sealed-list-cursors.md)."""
    from roomcast.api.cursors import ListCursors

    return ListCursors(lambda: stores().secrets.cursor_key())


Rooms = Annotated[RoomsService, Depends(rooms_service)]
Subscriptions = Annotated[SubscriptionsService, Depends(subscriptions_service)]
Messages = Annotated[MessagesService, Depends(messages_service)]
DeadLetters = Annotated[DeadLettersService, Depends(dead_letters_service)]
Deliveries = Annotated[DeliveriesService, Depends(deliveries_service)]
SigningSecrets = Annotated[SigningSecretsService, Depends(signing_secrets_service)]
Schedules = Annotated[ScheduleService, Depends(schedule_service)]
ApiKeys = Annotated[ApiKeysService, Depends(api_keys_service)]
Cursors = Annotated[ListCursors, Depends(list_cursors)]
