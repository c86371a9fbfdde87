"""The soak's account of an ordering key that did not move (docs/decisions/0041-ordering-keys.md):
when an ordered delivery is still ``waiting`` after the drain, the key's head and first waiting
messages as the table holds them, with each one's delivery status. A head holding a message whose
delivery ended is an ``Ended`` the outbox never applied; a free head with messages waiting is an
``Arrived`` it never applied; a claim by an ``arrived:``/``ended:`` trigger whose message is still
``waiting`` is a claim whose send was lost."""

from __future__ import annotations

from typing import Any

from roomcast.ordering.model import KeyRef
from roomcast.ordering.store import OrderingKeys
from roomcast_dev.stack import LocalStack
from roomcast_dev.stream_sources import StreamPoller
from tests.soak.ledger import FinalState, Publish

SOAK_TENANT = "soak"  # the tenant of the soak's API key (tests/soak/conftest.py)


def _status_of(final: FinalState, message_id: str | None, subscription_id: str) -> str:
    deliveries: list[dict[str, Any]] = final.statuses.get(message_id or "", {}).get("deliveries", [])
    found = next((d for d in deliveries if d["subscriptionId"] == subscription_id), None)
    return "unknown" if found is None else f"{found['status']}, attempts {found['attempts']}"


def stuck_keys(stack: LocalStack, publishes: list[Publish], final: FinalState) -> list[str]:
    """One line per (ordered subscription, key) with a delivery still waiting."""
    keys = OrderingKeys(stack.output("TableName"), client=stack.client("dynamodb"))
    refs: dict[KeyRef, None] = {}
    for publish in publishes:
        if publish.message_id is None or publish.ordering_key is None:
            continue
        for delivery in final.statuses.get(publish.message_id, {}).get("deliveries", []):
            if delivery["status"] == "waiting":
                ref = KeyRef(SOAK_TENANT, publish.room_id, delivery["subscriptionId"], publish.ordering_key)
                refs[ref] = None
    lines = []
    for ref in refs:
        line = keys.read(ref)
        head = line.head
        if head is None:
            held = "no head"
        else:
            status = _status_of(final, head.in_flight, ref.subscription_id)
            held = f"{head.state.value}, in flight {head.in_flight} ({status}), claimed by {head.claimed_by}"
        waiting = ", ".join(f"{m} ({_status_of(final, m, ref.subscription_id)})" for m in line.waiting_ids)
        lines.append(f"{ref.subscription_id} key {ref.ordering_key}: {held}; waiting: {waiting or 'none'}")
    if lines:  # the outbox moves keys from the table's stream: where its poller is
        lines += [p.state() for p in stack.pollers if isinstance(p, StreamPoller)]
    return lines
