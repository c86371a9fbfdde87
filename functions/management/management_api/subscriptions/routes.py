"""/rooms/{roomId}/subscriptions routes: thin — parse, call SubscriptionsService, map."""

from __future__ import annotations

from typing import Annotated

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.openapi.params import Body

from management_api.common import PAGE_SIZE, Cursor, Limit, RoomId, SubscriptionIdPath, no_content
from management_api.dependencies import Lists, Subscriptions
from management_api.subscriptions.models import (
    SubscriptionCreate,
    SubscriptionCreated,
    SubscriptionList,
    SubscriptionPatch,
    SubscriptionResponse,
)
from roomcast.api import Routes, Tenant, list_scope

routes = Routes("subscriptions")
SUBSCRIPTIONS = "/rooms/<roomId>/subscriptions"
SUBSCRIPTION = f"{SUBSCRIPTIONS}/<subscriptionId>"


@routes.post(SUBSCRIPTIONS, "createSubscription", "The subscription", 400, 404, 409, 415, status=201)
def create_subscription(
    roomId: RoomId, body: Annotated[SubscriptionCreate, Body()], tenant: Tenant, service: Subscriptions
) -> SubscriptionCreated:
    """Subscribe to a room

    `type` PUSH: webhooks to `pushUrl`, signed with the `signingSecret` returned here only
    (Standard Webhooks). `type` PULL: a queue of its own, read with pull/ack/nack. Either may
    filter by event type and version and override the room's retry policy (never its expiry).
    At most {MAX_SUBSCRIPTIONS_PER_ROOM} per room.
    """
    created = service.create(tenant, roomId, body)
    subscription = created.subscription
    return SubscriptionCreated.of_subscription(subscription, signingSecret=created.signing_secret)


@routes.get(SUBSCRIPTIONS, "listSubscriptions", "A page of subscriptions", 400, 404)
def list_subscriptions(
    roomId: RoomId, service: Subscriptions, lists: Lists, limit: Limit = PAGE_SIZE, cursor: Cursor = None
) -> SubscriptionList:
    """List a room's subscriptions

    A page at a time; follow `nextCursor` until it is null. Signing secrets are never listed.
    """
    scope = list_scope("subscriptions", roomId)
    page = service.page(lists.tenant_id, roomId, limit, lists.open(cursor, scope))
    found = [SubscriptionResponse.of_subscription(s) for s in page.items]
    return SubscriptionList(subscriptions=found, nextCursor=lists.seal(page.next_position, scope))


@routes.get(SUBSCRIPTION, "getSubscription", "The subscription", 404)
def get_subscription(
    roomId: RoomId, subscriptionId: SubscriptionIdPath, tenant: Tenant, service: Subscriptions
) -> SubscriptionResponse:
    """Read a subscription

    Its type, status, filters, overrides (null: the room's value) and PUSH/PULL settings.
    """
    subscription = service.get(tenant, roomId, subscriptionId)
    return SubscriptionResponse.of_subscription(subscription)


@routes.patch(SUBSCRIPTION, "updateSubscription", "The subscription as changed", 400, 404, 409, 415)
def update_subscription(
    roomId: RoomId,
    subscriptionId: SubscriptionIdPath,
    body: SubscriptionPatch,
    tenant: Tenant,
    service: Subscriptions,
) -> SubscriptionResponse:
    """Change a subscription

    Changes the fields given; `null` clears an override (the room's value applies again).
    `pushUrl` and `timeoutMs` apply to PUSH, `ackWaitMs` to PULL; `status` `disabled` stops
    routing to it. Changes apply from the push function's next batch. 409 when it changed meanwhile.
    """
    subscription = service.update(tenant, roomId, subscriptionId, body)
    return SubscriptionResponse.of_subscription(subscription)


@routes.delete(SUBSCRIPTION, "deleteSubscription", "Deleted", 404, 409, status=204)
def delete_subscription(
    roomId: RoomId, subscriptionId: SubscriptionIdPath, tenant: Tenant, service: Subscriptions
) -> Response[None]:
    """Delete a subscription

    Deletes it and its PULL queues. Refused (409) while it is another subscription's failover.
    """
    service.delete(tenant, roomId, subscriptionId)
    return no_content()
