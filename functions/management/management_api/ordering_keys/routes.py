"""/rooms/{roomId}/subscriptions/{subscriptionId}/ordering-keys routes."""

from __future__ import annotations

from typing import Annotated, Literal

from aws_lambda_powertools.event_handler.openapi.params import Body, Path, Query

from management_api.common import Limit, RoomId, SubscriptionIdPath
from management_api.dependencies import OrderingKeysApi
from management_api.ordering_keys.models import OrderingKeyList, OrderingKeyView, ResumeRequest
from roomcast.api import Routes, Tenant
from roomcast.platform import limits

routes = Routes("ordering keys")
KEYS = "/rooms/<roomId>/subscriptions/<subscriptionId>/ordering-keys"
OrderingKeyPath = Annotated[
    str, Path(description="The ordering key, as published (`orderingKey`).", examples=["order-1001"])
]
PausedOnly = Annotated[
    Literal["paused"], Query(description="Which keys: `paused` (the only one listed).", examples=["paused"])
]


@routes.get(KEYS, "listOrderingKeys", "The paused keys", 400, 404)
def list_ordering_keys(
    roomId: RoomId,
    subscriptionId: SubscriptionIdPath,
    tenant: Tenant,
    service: OrderingKeysApi,
    status: PausedOnly = "paused",
    limit: Limit = limits.MAX_PAGE_SIZE,
) -> OrderingKeyList:
    """List an ordered subscription's paused keys

    A key pauses when its message ends dead (with `onDeadKey: pause`): its later messages wait,
    in order, until it is resumed. Longest paused first, with the dead message and why it died;
    at most `limit` of them.
    """
    heads = service.paused(tenant, roomId, subscriptionId, limit)
    return OrderingKeyList(orderingKeys=[OrderingKeyView.of_head(h) for h in heads])


@routes.post(f"{KEYS}/<orderingKey>/resume", "resumeOrderingKey", "The key, resumed", 400, 404, 409)
def resume_ordering_key(
    roomId: RoomId,
    subscriptionId: SubscriptionIdPath,
    orderingKey: OrderingKeyPath,
    tenant: Tenant,
    service: OrderingKeysApi,
    body: Annotated[ResumeRequest, Body()] = None,  # type: ignore[assignment]
) -> OrderingKeyView:
    """Resume a paused ordering key

    Without `skip`, the dead message is sent again first (from attempt 0), then the key's later
    messages in order; with `skip: true` it stays a dead letter and the next one goes. 409
    `not_paused` for a key that flows; 404 for a key the subscription has never seen.
    """
    skip = body.skip if body is not None else False
    return OrderingKeyView.of_head(service.resume(tenant, roomId, subscriptionId, orderingKey, skip))
