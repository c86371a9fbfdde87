"""/rooms/{roomId}/subscriptions/{subscriptionId}/deliveries: retry now (of all: a job), clear all (a job)."""

from __future__ import annotations

from typing import Annotated

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.openapi.params import Body

from management_api.common import RoomId, SubscriptionIdPath
from management_api.deliveries.models import RetryRequest, RetryResponse
from management_api.dependencies import Deliveries, Jobs
from management_api.jobs.models import JOB_LINK, JobView, accepted, done, named_or_all, started
from roomcast.access import PortalUse, Scope, access
from roomcast.api import Routes, Tenant

routes = Routes("deliveries")
DELIVERIES = "/rooms/<roomId>/subscriptions/<subscriptionId>/deliveries"


@named_or_all(
    routes,
    f"{DELIVERIES}/retry",
    "retryDeliveries",
    "The named deliveries, due now",
    400,
    404,
    409,
    415,
    job="All of them: the retry job",
    named=RetryResponse,
    access=access(Scope.MANAGE, portal=PortalUse.WRITE),
)
def retry_deliveries(
    roomId: RoomId,
    subscriptionId: SubscriptionIdPath,
    tenant: Tenant,
    service: Deliveries,
    jobs: Jobs,
    # Optional, but an object when given (the documented schema offers no null).
    body: Annotated[RetryRequest, Body()] = None,  # type: ignore[assignment]
) -> Response[RetryResponse | JobView]:
    """Retry deliveries now

    Retrying deliveries of a PUSH subscription become due now, however long their backoff still
    had to run; the attempt count goes on. With `messageIds` (at most {MAX_PAGE_SIZE}) they are
    retried before the answer (200), and named messages without a retrying delivery here are
    listed in `notRetrying`. Without them, every delivery of the subscription that is retrying is
    retried by a job: the answer is 202 with the job to poll (`GET /jobs/{{jobId}}`; `counts.retried`
    says how many). 409 for a PULL subscription.
    """
    if body is not None and body.messageIds is not None:
        result = service.retry_now(tenant, roomId, subscriptionId, body.messageIds)
        return done(
            RetryResponse(
                retried=len(result.retried), messageIds=result.retried, notRetrying=result.not_retrying
            )
        )
    return started(jobs.retry_deliveries(tenant, roomId, subscriptionId))


@routes.delete(DELIVERIES, "clearDeliveries", "Clear All started: the job", 404, status=202, links=JOB_LINK)
def clear_deliveries(
    roomId: RoomId, subscriptionId: SubscriptionIdPath, tenant: Tenant, jobs: Jobs
) -> Response[JobView]:
    """Clear all deliveries

    Every pending, retrying or paused delivery of the subscription ends `cleared` and is never sent
    afterwards, including envelopes already waiting in SQS: none is sent from the moment this
    answers. Their records are marked by a job (poll `GET /jobs/{{jobId}}`; `counts.cleared` says how
    many). Delivered, dead and expired ones stay as they are. Messages published afterwards are
    delivered as usual.
    """
    return accepted(jobs.clear_deliveries(tenant, roomId, subscriptionId))
