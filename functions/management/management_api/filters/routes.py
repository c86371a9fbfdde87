"""/rooms/{roomId}/filters/test: the dry run of a message against the room's subscriptions."""

from __future__ import annotations

from management_api.common import RoomId
from management_api.dependencies import Filters
from management_api.filters.models import FilterTestRequest, FilterTestResponse
from roomcast.api import Routes, Tenant

routes = Routes("filters")


@routes.post(
    "/rooms/<roomId>/filters/test", "testFilters", "Each subscription: matched, or why not", 400, 404, 415
)
def test_filters(
    roomId: RoomId, body: FilterTestRequest, tenant: Tenant, service: Filters
) -> FilterTestResponse:
    """Dry-run a message against the room's subscriptions

    Answers, for every subscription of the room, whether publishing this message now would route
    it there, and if not, the first reason: the room refuses its event type or version, the
    subscription is disabled, its `eventTypes` do not accept it, or the first condition of its
    `filterPolicy` that failed (`payload.amount: 50 is not >= 100`). With a candidate
    `filterPolicy`, its verdict on the payload too (400 `invalid_filter_policy` when it is not a
    valid policy). Nothing is published, stored or sent.
    """
    return service.test(tenant, roomId, body)
