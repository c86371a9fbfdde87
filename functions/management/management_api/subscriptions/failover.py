"""The failover rule: another subscription of the same room, in a chain that never loops."""

from __future__ import annotations

from collections.abc import Callable

from roomcast.domain.models import Subscription
from roomcast.errors import InvalidRequest, NotFound

# Reads one subscription of the room; NotFound when there is none.
Lookup = Callable[[str], Subscription]


def check_failover(lookup: Lookup, room_id: str, subscription_id: str, failover_id: str) -> None:
    """Raise InvalidRequest (``invalid_failover``) unless ``failover_id`` may be the failover of
    ``subscription_id``: not itself, a subscription of the room, and no loop back along the chain."""
    problem: str | None = None
    if failover_id == subscription_id:
        problem = "a subscription cannot be its own failover"
    else:
        seen = {subscription_id}
        current: str | None = failover_id
        while current is not None:
            if current in seen:
                problem = "failover chain would loop back to this subscription"
                break
            seen.add(current)
            try:
                current = lookup(current).failover_subscription_id
            except NotFound:
                problem = f"failover subscription {failover_id} is not a subscription of room {room_id}"
                break
    if problem is not None:
        raise InvalidRequest(
            problem,
            code="invalid_failover",
            details=[
                {"field": "body.failoverSubscriptionId", "problem": problem, "type": "invalid_failover"}
            ],
        )
