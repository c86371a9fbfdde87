"""/rooms/{roomId}/subscriptions routes: thin — parse, call SubscriptionsService, map."""

from __future__ import annotations

from typing import Annotated

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.openapi.params import Body

from management_api.common import Cursor, Limit, RoomId, SubscriptionIdPath, no_content
from management_api.dependencies import Subscriptions
from management_api.subscriptions.models import (
    SubscriptionCreate,
    SubscriptionCreated,
    SubscriptionList,
    SubscriptionPatch,
    SubscriptionResponse,
)
from roomcast.api.openapi import link, responses
from roomcast.api.routing import new_router
from roomcast.api.tenancy import Tenant
from roomcast.domain import limits

router = new_router()
TAGS = ["subscriptions"]
SUBSCRIPTION = "/rooms/<roomId>/subscriptions/<subscriptionId>"
_IDS = {"roomId": "$response.body#/roomId", "subscriptionId": "$response.body#/id"}
_SUBSCRIPTION_LINKS = {
    "GetSubscription": link("getSubscription", "Read the subscription.", **_IDS),
    "UpdateSubscription": link("updateSubscription", "Change the subscription.", **_IDS),
    "DeleteSubscription": link("deleteSubscription", "Delete the subscription.", **_IDS),
    "Schedule": link("getSchedule", "Preview its retry schedule.", **_IDS),
    "DeadLetters": link("listDeadLetters", "List its dead letters.", **_IDS),
    "ReplayDeadLetters": link("replayDeadLetters", "Replay its dead letters.", **_IDS),
    "RotateSigningSecret": link("rotateSigningSecret", "Rotate its signing secret (PUSH).", **_IDS),
    "PullMessages": link("pullMessages", "Pull its messages (PULL).", **_IDS),
}


@router.post(
    "/rooms/<roomId>/subscriptions",
    status_code=201,
    operation_id="createSubscription",
    summary="Subscribe to a room",
    description="`type` PUSH: webhooks to `pushUrl`, signed with the `signingSecret` returned here only "
    "(Standard Webhooks). `type` PULL: a queue of its own, read with pull/ack/nack. Either may filter "
    "by event type and version and override the room's retry policy (never its expiry). At most "
    f"{limits.MAX_SUBSCRIPTIONS_PER_ROOM} per room.",
    responses=responses(
        201, "The subscription (PUSH: with its signing secret)", 400, 404, 409, 415, links=_SUBSCRIPTION_LINKS
    ),
    tags=TAGS,
)
def create_subscription(
    roomId: RoomId, body: Annotated[SubscriptionCreate, Body()], tenant: Tenant, subscriptions: Subscriptions
) -> SubscriptionCreated:
    created = subscriptions.create(tenant, roomId, body)
    return SubscriptionCreated.of_new(created.subscription, created.signing_secret)


@router.get(
    "/rooms/<roomId>/subscriptions",
    operation_id="listSubscriptions",
    summary="List a room's subscriptions",
    description="A page at a time; follow `nextCursor` until it is null. Signing secrets are never listed.",
    responses=responses(200, "A page of subscriptions", 400, 404, 422),
    tags=TAGS,
)
def list_subscriptions(
    roomId: RoomId,
    tenant: Tenant,
    subscriptions: Subscriptions,
    limit: Limit = limits.DEFAULT_PAGE_SIZE,
    cursor: Cursor = None,
) -> SubscriptionList:
    page = subscriptions.page(tenant, roomId, limit, cursor)
    return SubscriptionList(
        subscriptions=[SubscriptionResponse.of(s) for s in page.items], nextCursor=page.next_cursor
    )


@router.get(
    SUBSCRIPTION,
    operation_id="getSubscription",
    summary="Read a subscription",
    description="Its type, status, filters, overrides (null: the room's value) and PUSH/PULL settings.",
    responses=responses(200, "The subscription", 404),
    tags=TAGS,
)
def get_subscription(
    roomId: RoomId, subscriptionId: SubscriptionIdPath, tenant: Tenant, subscriptions: Subscriptions
) -> SubscriptionResponse:
    return SubscriptionResponse.of(subscriptions.get(tenant, roomId, subscriptionId))


@router.patch(
    SUBSCRIPTION,
    operation_id="updateSubscription",
    summary="Change a subscription",
    description="Changes the fields given; `null` clears an override (the room's value applies again). "
    "`pushUrl` and `timeoutMs` apply to PUSH, `ackWaitMs` to PULL; `status` `disabled` stops routing to "
    "it. Changes apply from the push function's next batch. 409 when it changed meanwhile.",
    responses=responses(200, "The subscription as changed", 400, 404, 409, 415),
    tags=TAGS,
)
def update_subscription(
    roomId: RoomId,
    subscriptionId: SubscriptionIdPath,
    body: SubscriptionPatch,
    tenant: Tenant,
    subscriptions: Subscriptions,
) -> SubscriptionResponse:
    return SubscriptionResponse.of(subscriptions.update(tenant, roomId, subscriptionId, body))


@router.delete(
    SUBSCRIPTION,
    status_code=204,
    operation_id="deleteSubscription",
    summary="Delete a subscription",
    description="Deletes it and its PULL queues. Refused (409) while it is another subscription's failover.",
    responses=responses(204, "Deleted", 404, 409),
    tags=TAGS,
)
def delete_subscription(
    roomId: RoomId, subscriptionId: SubscriptionIdPath, tenant: Tenant, subscriptions: Subscriptions
) -> Response[None]:
    subscriptions.delete(tenant, roomId, subscriptionId)
    return no_content()
