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

from roomcast.api import Tenant

if TYPE_CHECKING:
    from management_api.alerts.service import AlertsService
    from management_api.api_keys.service import ApiKeysService
    from management_api.dead_letters.service import DeadLettersService
    from management_api.deliveries.service import DeliveriesService
    from management_api.event_types.service import EventTypesService
    from management_api.filters.service import FiltersService
    from management_api.jobs.service import JobsService
    from management_api.messages.service import MessagesService
    from management_api.metrics.service import MetricsService
    from management_api.ordering_keys.service import OrderingKeysService
    from management_api.portal_sessions.service import PortalSessionsService
    from management_api.rooms.service import RoomsService
    from management_api.schedule.service import ScheduleService
    from management_api.signing_secrets.service import SigningSecretsService
    from management_api.subscriptions.service import SubscriptionsService
    from management_api.test_events.service import TestEventsService
    from management_api.transformations.service import TransformationsService
    from roomcast.api import ListCursors, TenantCursors
    from roomcast.catalog import CatalogTable
    from roomcast.log import DeliveryLog
    from roomcast.messages import EnvelopeSender, MessageTable, QueueAddresses
    from roomcast.outbox import OutboxQueue
    from roomcast.platform import Settings
    from roomcast.portal import PortalSessionTable
    from roomcast.publishing import Publisher
    from roomcast.pull import QueueAdmin
else:
    # powertools reads only the Depends of an annotation: the classes are for the type checker.
    RoomsService = SubscriptionsService = MessagesService = DeliveriesService = FiltersService = object
    EventTypesService = OrderingKeysService = MetricsService = AlertsService = object
    DeadLettersService = SigningSecretsService = ScheduleService = ApiKeysService = JobsService = object
    PortalSessionsService = TestEventsService = TransformationsService = object
    ListCursors = TenantCursors = object


# -- the data access, one of each per container ------------------------------------------------


@cache
def settings() -> Settings:
    from roomcast.platform import load_settings

    return load_settings()


@cache
def catalog() -> CatalogTable:
    from roomcast.catalog import CatalogTable

    return CatalogTable(settings().table_name)


@cache
def messages() -> MessageTable:
    from roomcast.messages import MessageTable

    return MessageTable(settings().table_name)


@cache
def sender() -> EnvelopeSender:
    from roomcast.messages import EnvelopeSender

    return EnvelopeSender()


@cache
def delivery_log() -> DeliveryLog:
    from roomcast.log import DeliveryLog

    return DeliveryLog(settings().delivery_stream, "management")


@cache
def queue_admin() -> QueueAdmin:
    from roomcast.pull import QueueAdmin

    return QueueAdmin(settings().pull_queue_prefix)


def addresses() -> QueueAddresses:
    from roomcast.wiring import queue_addresses

    return queue_addresses(settings())


def outbox() -> OutboxQueue:
    from roomcast.wiring import outbox_queue

    return outbox_queue(settings(), sender())


# -- the services, one per route family -----------------------------------------------------------


def rooms_service() -> RoomsService:
    from management_api.rooms.service import RoomsService

    return RoomsService(catalog())


def subscriptions_service() -> SubscriptionsService:
    from management_api.subscriptions.service import SubscriptionsService
    from roomcast.destinations import DestinationSender, partition_of_region
    from roomcast.webhooks import PushUrlPolicy, system_resolver

    policy = PushUrlPolicy(allow_loopback=settings().allow_loopback_push_urls)
    aws = (DestinationSender(), partition_of_region(settings().region))
    return SubscriptionsService(catalog(), queue_admin(), outbox(), policy, system_resolver, aws)


def transformations_service() -> TransformationsService:
    from management_api.transformations.service import TransformationsService

    return TransformationsService(catalog())


def filters_service() -> FiltersService:
    from management_api.filters.service import FiltersService

    return FiltersService(catalog())


def event_types_service() -> EventTypesService:
    from management_api.event_types.service import EventTypesService
    from roomcast.event_types import EventTypeTable

    return EventTypesService(EventTypeTable.sharing(catalog()))


def messages_service() -> MessagesService:
    from management_api.messages.service import MessagesService
    from roomcast.deliver_at import ScheduledTable

    return MessagesService(messages(), catalog(), ScheduledTable.sharing(messages()))


def deliveries_service() -> DeliveriesService:
    from management_api.deliveries.service import DeliveriesService
    from roomcast.jobs import RetryNow

    return DeliveriesService(
        catalog(), messages(), RetryNow(messages(), sender(), addresses(), delivery_log())
    )


def dead_letters_service() -> DeadLettersService:
    from management_api.dead_letters.service import DeadLettersService
    from roomcast.dead_letters import DeadLetterTable, Replayer

    dead_letters = DeadLetterTable.sharing(catalog())
    replayer = Replayer(dead_letters, messages(), sender(), addresses(), delivery_log())
    return DeadLettersService(catalog(), dead_letters, replayer)


def jobs_service() -> JobsService:
    from management_api.jobs.service import JobsService
    from roomcast.jobs import JobTable

    return JobsService(catalog(), JobTable.sharing(catalog()), outbox())


def signing_secrets_service() -> SigningSecretsService:
    from management_api.signing_secrets.service import SigningSecretsService

    return SigningSecretsService(catalog())


def ordering_keys_service() -> OrderingKeysService:
    from management_api.ordering_keys.service import OrderingKeysService
    from roomcast.dead_letters import DeadLetterTable
    from roomcast.ordering import KeyResumes, KeySteps, OrderedSends, OrderingKeys

    keys = OrderingKeys.sharing(messages())
    sends = OrderedSends(KeySteps(keys), catalog(), messages(), sender(), addresses())
    return OrderingKeysService(catalog(), keys, KeyResumes(sends, DeadLetterTable.sharing(catalog())))


def schedule_service() -> ScheduleService:
    from management_api.schedule.service import ScheduleService

    return ScheduleService(catalog())


def portal_sessions_service() -> PortalSessionsService:
    from management_api.portal_sessions.service import PortalSessionsService
    from roomcast.portal import PortalSessionTable, PortalSettingsTable

    table = catalog()
    return PortalSessionsService(PortalSessionTable.sharing(table), table, PortalSettingsTable.sharing(table))


def test_events_service() -> TestEventsService:
    from management_api.test_events.service import TestEventsService
    from roomcast.event_types import EventTypeTable

    return TestEventsService(catalog(), EventTypeTable.sharing(catalog()), test_publisher)


@cache
def test_publisher() -> Publisher:
    """The publish path, for test events (no catalog checks: a test event is sent as asked)."""
    from roomcast import wiring

    return wiring.Basics.of(delivery_log()).publisher()


def portal_session_table() -> PortalSessionTable:
    from roomcast.portal import PortalSessionTable

    return PortalSessionTable.sharing(catalog())


def api_keys_service() -> ApiKeysService:
    from management_api.api_keys.service import ApiKeysService
    from roomcast.keys import ApiKeyTable

    return ApiKeysService(ApiKeyTable.sharing(catalog()), catalog())


@cache
def metrics_service() -> MetricsService:
    from management_api.metrics.service import MetricsService
    from roomcast.metrics import MetricsTable

    return MetricsService(catalog(), MetricsTable.sharing(catalog()))


@cache
def alerts_service() -> AlertsService:
    from management_api.alerts.service import AlertsService
    from roomcast.alerts import AlertTable
    from roomcast.platform import sns_client
    from roomcast.webhooks import PushUrlPolicy

    topic = settings().alert_topic_arn or None
    policy = PushUrlPolicy(allow_loopback=settings().allow_loopback_push_urls)
    sns = sns_client() if topic else None
    return AlertsService(AlertTable.sharing(catalog()), catalog(), policy, sns, topic)


@cache
def list_cursors() -> ListCursors:
    """The sealer of every list's cursors; its key (Secrets Manager) is read on the first cursor a
    list takes or hands out, not before (docs/decisions/0027-sealed-list-cursors.md)."""
    from roomcast.api import ListCursors
    from roomcast.platform import StackSecrets

    secrets = StackSecrets(settings().receipt_key_secret)
    return ListCursors(secrets.cursor_key)


def tenant_cursors(tenant: Tenant) -> TenantCursors:
    """The caller's list cursors: the tenant a cursor is sealed for and opened by."""
    return list_cursors().of(tenant)


Rooms = Annotated[RoomsService, Depends(rooms_service)]
Subscriptions = Annotated[SubscriptionsService, Depends(subscriptions_service)]
Messages = Annotated[MessagesService, Depends(messages_service)]
Filters = Annotated[FiltersService, Depends(filters_service)]
Transformations = Annotated[TransformationsService, Depends(transformations_service)]
EventTypes = Annotated[EventTypesService, Depends(event_types_service)]
DeadLetters = Annotated[DeadLettersService, Depends(dead_letters_service)]
Deliveries = Annotated[DeliveriesService, Depends(deliveries_service)]
Jobs = Annotated[JobsService, Depends(jobs_service)]
SigningSecrets = Annotated[SigningSecretsService, Depends(signing_secrets_service)]
Schedules = Annotated[ScheduleService, Depends(schedule_service)]
OrderingKeysApi = Annotated[OrderingKeysService, Depends(ordering_keys_service)]
Metrics = Annotated[MetricsService, Depends(metrics_service)]
Alerts = Annotated[AlertsService, Depends(alerts_service)]
ApiKeys = Annotated[ApiKeysService, Depends(api_keys_service)]
PortalSessions = Annotated[PortalSessionsService, Depends(portal_sessions_service)]
TestEvents = Annotated[TestEventsService, Depends(test_events_service)]
Lists = Annotated[TenantCursors, Depends(tenant_cursors)]
