"""/rooms/{roomId}/subscriptions routes: thin — parse, call SubscriptionsService, map."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Annotated

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.openapi.params import Body, Query

from management_api import portal_reach
from management_api.common import PAGE_SIZE, Cursor, Limit, RoomId, SubscriptionIdPath, no_content
from management_api.dependencies import Lists, Subscriptions
from management_api.subscriptions.models import SubscriptionCreate, SubscriptionPatch
from management_api.subscriptions.responses import SubscriptionCreated, SubscriptionList, SubscriptionResponse
from roomcast.access import CONSUMER_ID_PATTERN, PortalUse, Scope, access
from roomcast.api import Access, Origin, Routes, Tenant, list_scope
from roomcast.catalog import Subscription

routes = Routes("subscriptions")
ConsumerQuery = Annotated[
    str | None,
    Query(pattern=CONSUMER_ID_PATTERN, description="Only the subscriptions of this consumer (`consumerId`)."),
]


def handshake_origin(origin: str) -> str:
    """The API's host name, as a validation handshake's ``WebHook-Request-Origin`` names roomcast."""
    return origin.split("://", 1)[-1]


def _of_consumer(subscription: Subscription, consumer_id: str) -> bool:
    return subscription.consumer_id == consumer_id


SUBSCRIPTIONS = "/rooms/<roomId>/subscriptions"
SUBSCRIPTION = f"{SUBSCRIPTIONS}/<subscriptionId>"


@routes.post(
    SUBSCRIPTIONS,
    "createSubscription",
    "The subscription",
    400,
    404,
    409,
    415,
    status=201,
    access=access(Scope.MANAGE, portal=PortalUse.WRITE),
)
def create_subscription(
    roomId: RoomId,
    body: Annotated[SubscriptionCreate, Body()],
    tenant: Tenant,
    caller: Access,
    origin: Origin,
    service: Subscriptions,
) -> SubscriptionCreated:
    """Subscribe to a room

    `type` PUSH: webhooks to `pushUrl`, signed with the `signingSecret` returned here only
    (Standard Webhooks). `type` PULL: a queue of its own, read with pull/ack/nack. Either may
    filter by event type and version and override the room's retry policy (never its expiry).
    At most {MAX_SUBSCRIPTIONS_PER_ROOM} per room. `consumerId` names your customer it belongs to.
    With a portal token: PUSH only, `pushUrl`, `eventTypes` (within the session's),
    `filterPolicy`; it belongs to the session's consumer (403 `portal_field` for any other field).
    """
    if caller.reach is not None:
        portal_reach.check_create(body, caller.reach)
        body = body.model_copy(update={"consumerId": caller.reach.consumer_id})
    created = service.create(tenant, roomId, body, handshake_origin(origin))
    subscription = created.subscription
    return SubscriptionCreated.of_subscription(subscription, signingSecret=created.signing_secret)


@routes.get(
    SUBSCRIPTIONS,
    "listSubscriptions",
    "A page of subscriptions",
    400,
    404,
    access=access(Scope.READ, Scope.MANAGE, portal=PortalUse.READ),
)
def list_subscriptions(
    roomId: RoomId,
    service: Subscriptions,
    lists: Lists,
    caller: Access,
    limit: Limit = PAGE_SIZE,
    cursor: Cursor = None,
    consumerId: ConsumerQuery = None,
) -> SubscriptionList:
    """List a room's subscriptions

    A page at a time; follow `nextCursor` until it is null. Signing secrets are never listed.
    `consumerId`: only that customer's. With a portal token: only its consumer's, to its event types.
    """
    reach = caller.reach
    wanted: Callable[[Subscription], bool] | None = None
    if reach is not None:
        wanted = partial(portal_reach.in_reach, reach=reach)
    elif consumerId is not None:
        wanted = partial(_of_consumer, consumer_id=consumerId)
    scope = list_scope("subscriptions", roomId, consumer=reach.consumer_id if reach else consumerId)
    page = service.page(lists.tenant_id, roomId, limit, lists.open(cursor, scope), wanted)
    found = [SubscriptionResponse.of_subscription(s) for s in page.items]
    return SubscriptionList(subscriptions=found, nextCursor=lists.seal(page.next_position, scope))


@routes.get(
    SUBSCRIPTION,
    "getSubscription",
    "The subscription",
    404,
    access=access(Scope.READ, Scope.MANAGE, portal=PortalUse.READ),
)
def get_subscription(
    roomId: RoomId, subscriptionId: SubscriptionIdPath, tenant: Tenant, service: Subscriptions
) -> SubscriptionResponse:
    """Read a subscription

    Its type, status, filters, overrides (null: the room's value) and PUSH/PULL settings.
    """
    subscription = service.get(tenant, roomId, subscriptionId)
    return SubscriptionResponse.of_subscription(subscription)


@routes.patch(
    SUBSCRIPTION,
    "updateSubscription",
    "The subscription as changed",
    400,
    404,
    409,
    415,
    access=access(Scope.MANAGE, portal=PortalUse.WRITE),
)
def update_subscription(
    roomId: RoomId,
    subscriptionId: SubscriptionIdPath,
    body: SubscriptionPatch,
    tenant: Tenant,
    caller: Access,
    origin: Origin,
    service: Subscriptions,
) -> SubscriptionResponse:
    """Change a subscription

    Changes the fields given; `null` clears an override (the room's value applies again).
    `pushUrl` and `timeoutMs` apply to PUSH, `ackWaitMs` to PULL; `status` `disabled` stops
    routing to it. Changes apply from the push function's next batch. 409 when it changed meanwhile.
    With a portal token: `pushUrl`, `eventTypes` (within the session's), `filterPolicy` and
    `status` `active` or `paused` only.
    """
    if caller.reach is not None:
        portal_reach.check_fields(set(body.model_fields_set), portal_reach.PORTAL_PATCH_FIELDS)
        if body.status is not None and body.status not in portal_reach.PORTAL_STATUSES:
            portal_reach.check_fields({"status"}, frozenset())
        given = "eventTypes" in body.model_fields_set
        portal_reach.check_event_types([e.name for e in body.eventTypes or ()], caller.reach, present=given)
    subscription = service.update(tenant, roomId, subscriptionId, body, handshake_origin(origin))
    return SubscriptionResponse.of_subscription(subscription)


@routes.delete(
    SUBSCRIPTION,
    "deleteSubscription",
    "Deleted",
    404,
    409,
    status=204,
    access=access(Scope.MANAGE, portal=PortalUse.WRITE),
)
def delete_subscription(
    roomId: RoomId, subscriptionId: SubscriptionIdPath, tenant: Tenant, service: Subscriptions
) -> Response[None]:
    """Delete a subscription

    Deletes it and its PULL queues. Refused (409) while it is another subscription's failover.
    """
    service.delete(tenant, roomId, subscriptionId)
    return no_content()
