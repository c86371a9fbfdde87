"""The filter dry run: which subscriptions of a room a message would reach, and why not. Reads
only; nothing is published, stored or sent."""

from __future__ import annotations

from dataclasses import dataclass

from management_api.filters.models import (
    CandidateMatch,
    FilterTestRequest,
    FilterTestResponse,
    SubscriptionMatch,
)
from management_api.filters.policy import checked_policy
from roomcast.catalog import Catalog
from roomcast.messages import Publication
from roomcast.platform import check_payload_size
from roomcast.publishing import explain_routing


@dataclass
class FiltersService:
    catalog: Catalog

    def test(self, tenant_id: str, room_id: str, request: FilterTestRequest) -> FilterTestResponse:
        check_payload_size(request.payload)  # what a publish takes, and no more: 413 before any read
        candidate = checked_policy(request.filterPolicy)  # an invalid one: 400 before any read
        room, subscriptions = self.catalog.routing_view(tenant_id, room_id)  # what a publish reads
        publication = Publication(request.eventType, request.eventVersion, request.payload)
        refused, explained = explain_routing(room, subscriptions, publication)
        tried = candidate.evaluate(request.payload) if candidate is not None else None  # once: no index
        return FilterTestResponse(
            accepted=refused is None,
            reason=refused,
            subscriptions=[
                SubscriptionMatch(
                    subscriptionId=e.subscription.id,
                    type=e.subscription.type.value,
                    status=e.subscription.status.value,
                    matched=e.matched,
                    reason=e.reason,
                )
                for e in explained
            ],
            candidate=CandidateMatch(matched=tried.matched, reason=tried.reason) if tried else None,
        )
