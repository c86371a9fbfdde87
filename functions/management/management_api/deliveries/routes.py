"""/rooms/{roomId}/subscriptions/{subscriptionId}/deliveries: retry now, clear all."""

from __future__ import annotations

from typing import Annotated

from aws_lambda_powertools.event_handler.openapi.params import Body

from management_api.common import RoomId, SubscriptionIdPath
from management_api.deliveries.models import ClearResponse, RetryRequest, RetryResponse
from management_api.dependencies import Deliveries
from roomcast.api.documented_routes import Routes
from roomcast.api.tenancy import Tenant

routes = Routes("deliveries")
DELIVERIES = "/rooms/<roomId>/subscriptions/<subscriptionId>/deliveries"


@routes.post(f"{DELIVERIES}/retry", "retryDeliveries", "What is now due", 400, 404, 409, 415)
def retry_deliveries(
    roomId: RoomId,
    subscriptionId: SubscriptionIdPath,
    tenant: Tenant,
    service: Deliveries,
    # Optional, but an object when given (the documented schema offers no null).
    body: Annotated[RetryRequest, Body()] = None,  # type: ignore[assignment]
) -> RetryResponse:
    """Retry deliveries now

    Retrying deliveries of a PUSH subscription (the given messages', or all of them) become due
    now, however long their backoff still had to run; the attempt count goes on. Deliveries that
    are not retrying are left alone (`notRetrying`). 409 for a PULL subscription.
    """
    result = service.retry_now(tenant, roomId, subscriptionId, body.messageIds if body is not None else None)
    return RetryResponse(
        retried=len(result.retried), messageIds=result.retried, notRetrying=result.not_retrying
    )


@routes.delete(DELIVERIES, "clearDeliveries", "How many were cleared", 404, 409)
def clear_deliveries(
    roomId: RoomId, subscriptionId: SubscriptionIdPath, tenant: Tenant, service: Deliveries
) -> ClearResponse:
    """Clear all deliveries

    Every pending, retrying or paused delivery of the subscription ends `cleared` and is never sent
    afterwards, including envelopes already waiting in SQS. Delivered, dead and expired ones stay
    as they are. Messages published afterwards are delivered as usual.
    """
    return ClearResponse(cleared=service.clear(tenant, roomId, subscriptionId))
