"""The failover rule: another subscription of the same room, in a short chain that never loops."""

from __future__ import annotations

from collections.abc import Callable

from roomcast.catalog.model import Subscription
from roomcast.catalog.ports import FailoverLink, SubscriptionRecords
from roomcast.platform import MAX_FAILOVER_CHAIN_LENGTH, InvalidRequest, NotFound

# Reads one subscription of the room; NotFound when there is none.
Lookup = Callable[[str], Subscription]


def check_failover(
    lookup: Lookup, room_id: str, subscription_id: str, failover_id: str
) -> tuple[FailoverLink, ...]:
    """The chain from ``failover_id`` as read (the write that relies on this check is conditional
    on it being unchanged); InvalidRequest (``invalid_failover``) unless ``failover_id`` may be the
    failover of ``subscription_id``: not itself, a subscription of the room, a chain of at most
    MAX_FAILOVER_CHAIN_LENGTH subscriptions, and no loop back along it."""
    problem: str | None = None
    chain: list[FailoverLink] = []
    if failover_id == subscription_id:
        problem = "a subscription cannot be its own failover"
    else:
        seen = {subscription_id}
        current: str | None = failover_id
        while current is not None:
            if current in seen:
                problem = "failover chain would loop back to this subscription"
                break
            if len(chain) == MAX_FAILOVER_CHAIN_LENGTH:
                problem = (
                    f"failover chain would be longer than {MAX_FAILOVER_CHAIN_LENGTH} subscriptions "
                    "(a message is handed on at most that often)"
                )
                break
            seen.add(current)
            try:
                found = lookup(current)
            except NotFound:
                problem = f"failover subscription {failover_id} is not a subscription of room {room_id}"
                break
            chain.append(FailoverLink(found.id, found.failover_subscription_id))
            current = found.failover_subscription_id
    if problem is not None:
        raise InvalidRequest(
            problem,
            code="invalid_failover",
            details=[
                {"field": "body.failoverSubscriptionId", "problem": problem, "type": "invalid_failover"}
            ],
        )
    return tuple(chain)


def checked_failover_chain(
    subscriptions: SubscriptionRecords, tenant_id: str, room_id: str, subscription_id: str, failover_id: str
) -> tuple[FailoverLink, ...]:
    """``check_failover`` over the room's subscriptions as the store reads them."""

    def lookup(other_id: str) -> Subscription:
        return subscriptions.get_subscription(tenant_id, room_id, other_id)

    return check_failover(lookup, room_id, subscription_id, failover_id)
