"""``client.metrics``: a subscription's, a room's and the tenant's metrics over time, per minute
or per hour (docs/metrics.md)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TypeAlias

from roomcast_client._core import Call, query, read_model
from roomcast_client._executors import E, Resource, operation
from roomcast_client._generated.enums import MetricsResolution
from roomcast_client.models import MetricsResponse
from roomcast_client.resources.common import room_path, subscription_path

__all__ = ["Metrics", "MetricsResolution"]

# A window's start or end: a datetime (aware; a naive one is UTC) or RFC 3339 text with its offset.
Moment: TypeAlias = datetime | str
# ``"1m"`` or ``"1h"`` (``MetricsResolution``, generated from the API's document).
Resolution: TypeAlias = MetricsResolution | str


def rfc3339(moment: Moment | None) -> str | None:
    """A datetime as RFC 3339 in UTC with ``Z`` (``2026-11-22T10:00:00Z``); text as given."""
    if moment is None or isinstance(moment, str):
        return moment
    aware = moment if moment.tzinfo else moment.replace(tzinfo=UTC)
    return aware.astimezone(UTC).isoformat().replace("+00:00", "Z")


def _metrics_call(
    path: str, start: Moment | None, end: Moment | None, resolution: Resolution
) -> Call[MetricsResponse]:
    params = query(**{"from": rfc3339(start), "to": rfc3339(end), "resolution": str(resolution)})
    return Call("GET", f"{path}/metrics", read_model(MetricsResponse), params=params)


class Metrics(Resource[E]):
    """Every bucket of the window ``[from_, to)``, oldest first, zeros where nothing happened;
    ``from_`` defaults to an hour (``1m``) or a day (``1h``) before ``to``, ``to`` to now;
    ``resolution`` is ``"1m"`` (kept 48 hours, at most 1,440 points) or ``"1h"`` (kept 35 days,
    at most 840): a wider window is ``BadRequest`` (``invalid_window``)."""

    @operation
    def subscription(
        self,
        room_id: str,
        subscription_id: str,
        *,
        from_: Moment | None = None,
        to: Moment | None = None,
        resolution: Resolution = "1m",
    ) -> Call[MetricsResponse]:
        """A subscription's metrics over time."""
        return _metrics_call(subscription_path(room_id, subscription_id), from_, to, resolution)

    @operation
    def room(
        self,
        room_id: str,
        *,
        from_: Moment | None = None,
        to: Moment | None = None,
        resolution: Resolution = "1m",
    ) -> Call[MetricsResponse]:
        """A room's metrics over time: its subscriptions' added up (percentiles merged)."""
        return _metrics_call(room_path(room_id), from_, to, resolution)

    @operation
    def tenant(
        self, *, from_: Moment | None = None, to: Moment | None = None, resolution: Resolution = "1m"
    ) -> Call[MetricsResponse]:
        """The tenant's metrics over time: every subscription of every room, added up."""
        return _metrics_call("", from_, to, resolution)
