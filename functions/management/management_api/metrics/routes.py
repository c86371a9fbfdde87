"""/metrics routes: a subscription's, a room's and the tenant's metrics over time."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from aws_lambda_powertools.event_handler.openapi.params import Query

from management_api.common import RoomId, SubscriptionIdPath
from management_api.dependencies import Metrics
from management_api.metrics.models import MetricsResponse, ResolutionName
from management_api.metrics.window import Window, window
from roomcast.access import PortalUse, Scope, access
from roomcast.api import Routes, Tenant, ZonedInstant
from roomcast.metrics import Resolution
from roomcast.platform import now_ms

routes = Routes("metrics")

From = Annotated[
    ZonedInstant | None,
    Query(
        alias="from",
        description="The window's start (RFC 3339); default: an hour (1m) or a day (1h) before `to`.",
        examples=["2026-11-22T10:00:00Z"],
    ),
]
To = Annotated[
    ZonedInstant | None,
    Query(
        description="The window's end, exclusive (RFC 3339); default: now.", examples=["2026-11-22T11:00:00Z"]
    ),
]
ResolutionQuery = Annotated[
    ResolutionName,
    Query(description="`1m` (kept 48 hours, at most 1,440 points) or `1h` (kept 35 days, at most 840)."),
]


def _ms(moment: datetime | None) -> int | None:
    return None if moment is None else int(moment.timestamp() * 1000)


def _asked(resolution: ResolutionName, start: datetime | None, to: datetime | None) -> Window:
    return window(Resolution(resolution), _ms(start), _ms(to), now_ms())


@routes.get(
    "/rooms/<roomId>/subscriptions/<subscriptionId>/metrics",
    "getSubscriptionMetrics",
    "Its metrics",
    400,
    404,
    access=access(Scope.READ, Scope.MANAGE, portal=PortalUse.READ),
)
def get_subscription_metrics(
    roomId: RoomId,
    subscriptionId: SubscriptionIdPath,
    tenant: Tenant,
    service: Metrics,
    start: From = None,
    to: To = None,
    resolution: ResolutionQuery = "1m",
) -> MetricsResponse:
    """A subscription's metrics over time

    Deliveries delivered, attempts failed, dead, expired, aborted, cleared, filtered out; the
    endpoint's answer time and the delivery delay as p50/p95/p99; the backlog and the age of its
    oldest — per minute (kept 48 hours) or per hour (kept 35 days), within about a minute of an
    attempt (docs/metrics.md). 400 `invalid_window` for a window with `from` not before `to` or
    more points than one answer holds.
    """
    asked = _asked(resolution, start, to)
    found, backlog = service.of_subscription(tenant, roomId, subscriptionId, asked)
    return MetricsResponse.of(found, backlog, asked.to_ms)


@routes.get("/rooms/<roomId>/metrics", "getRoomMetrics", "Its metrics", 400, 404)
def get_room_metrics(
    roomId: RoomId,
    tenant: Tenant,
    service: Metrics,
    start: From = None,
    to: To = None,
    resolution: ResolutionQuery = "1m",
) -> MetricsResponse:
    """A room's metrics over time

    Its subscriptions' metrics added up (percentiles merged exactly), with the same window and
    resolution as a subscription's.
    """
    asked = _asked(resolution, start, to)
    found, backlog = service.of_room(tenant, roomId, asked)
    return MetricsResponse.of(found, backlog, asked.to_ms)


@routes.get("/metrics", "getTenantMetrics", "Its metrics", 400)
def get_tenant_metrics(
    tenant: Tenant,
    service: Metrics,
    start: From = None,
    to: To = None,
    resolution: ResolutionQuery = "1m",
) -> MetricsResponse:
    """The tenant's metrics over time

    Every subscription of every room of the tenant, added up.
    """
    asked = _asked(resolution, start, to)
    found, backlog = service.of_tenant(tenant, asked)
    return MetricsResponse.of(found, backlog, asked.to_ms)
