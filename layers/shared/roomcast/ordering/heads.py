"""A key's head as an item (docs/decisions/0041-ordering-keys.md; roomcast.ordering.store writes
it): what a step's plan leaves of it, and the condition its write goes through on. Pure.

A head is written whole, from the head as the step read it, with a fresh ``revision``: the write
goes through only while the head is still at the revision read (or still absent) — and, as before
revisions, a release only of the message the head still holds, a claim only of a free, flowing
key, an unpause only of a paused one. ``queued``: a message waits behind the one in flight, so its
release must read the line; without it a release goes without reading (``released_alone_condition``).
"""

from __future__ import annotations

import secrets
from typing import Any, Final

from roomcast.ordering.model import KeyHead, KeyPlan, KeyRef, KeyState
from roomcast.platform import items

HEAD_SORT_KEY: Final = "HEAD"
# A head left with nothing in flight and nothing waiting expires (DynamoDB TTL) after this long:
# keys are as many as the entities they order, and an idle key costs nothing to create again.
IDLE_HEAD_SECONDS: Final = 7 * 24 * 3600


def paused_partition(tenant_id: str, subscription_id: str) -> str:
    return f"TENANT#{tenant_id}#SUB#{subscription_id}#PAUSED"


def key_partition(ref: KeyRef) -> str:
    return f"TENANT#{ref.tenant_id}#SUB#{ref.subscription_id}#OKEY#{ref.ordering_key}"


def head_from_item(item: items.Item) -> KeyHead:
    return KeyHead(
        KeyRef(item["tenantId"], item["roomId"], item["subscriptionId"], item["orderingKey"]),
        in_flight=item.get("inFlight"),
        claimed_by=item.get("claimedBy"),
        state=KeyState(item.get("state", KeyState.FLOWING.value)),
        dead_message_id=item.get("deadMessageId"),
        paused_reason=item.get("pausedReason"),
        paused_at_ms=int(item["pausedAtMs"]) if "pausedAtMs" in item else None,
        revision=item.get("revision"),
        queued=bool(item.get("queued", False)),
    )


def head_after(
    ref: KeyRef, head: KeyHead | None, steps: KeyPlan, trigger: str, now_ms: int
) -> items.Item | None:
    """The head as ``steps`` leaves it (None: they leave it as it is)."""
    claim = steps.claim or steps.replay
    moves = steps.release is not None or steps.pause is not None or steps.unpause or claim is not None
    if not moves and steps.queued is None:
        return None
    was = head or KeyHead(ref)
    state, dead, reason, paused_at = was.state, was.dead_message_id, was.paused_reason, was.paused_at_ms
    if steps.unpause:
        state, dead, reason, paused_at = KeyState.FLOWING, None, None, None
    if steps.pause is not None:
        state, dead, reason, paused_at = KeyState.PAUSED, steps.pause, (steps.reason or "dead")[:300], now_ms
    written: items.Item = {
        "PK": key_partition(ref),
        "SK": HEAD_SORT_KEY,
        "tenantId": ref.tenant_id,
        "roomId": ref.room_id,
        "subscriptionId": ref.subscription_id,
        "orderingKey": ref.ordering_key,
        "state": state.value,
        "revision": secrets.token_hex(8),
        "queued": (was.queued if steps.queued is None else steps.queued) or None,
    }
    if state is KeyState.PAUSED:
        paused_at = now_ms if paused_at is None else paused_at
        written |= {
            "deadMessageId": dead,
            "pausedReason": reason,
            "pausedAtMs": paused_at,
            "GSI2PK": paused_partition(ref.tenant_id, ref.subscription_id),
            "GSI2SK": f"{paused_at:015d}#{ref.ordering_key}",
        }
    if claim is not None:
        written |= {"inFlight": claim, "claimedBy": trigger}
    elif not moves:  # only ``queued`` changes: the message in flight stays
        written |= {"inFlight": was.in_flight, "claimedBy": was.claimed_by}
    if "inFlight" not in written and state is KeyState.FLOWING:
        written["ttl"] = now_ms // 1000 + IDLE_HEAD_SECONDS
    return {name: value for name, value in written.items() if value is not None}


def head_condition(head: KeyHead | None, steps: KeyPlan) -> dict[str, Any]:
    """The put's condition: the head as read, and what the plan relies on."""
    if head is None:
        return {"ConditionExpression": "attribute_not_exists(PK)"}
    conditions: list[str] = []
    names: dict[str, str] = {}
    values: dict[str, Any] = {}

    def require(condition: str, attribute: str, **named: Any) -> None:
        conditions.append(f"({condition})")
        names[f"#{attribute}"] = attribute
        values.update({f":{name}": items.to_attributes({"v": value})["v"] for name, value in named.items()})

    if head.revision is not None:
        require("#revision = :revision", "revision", revision=head.revision)
    else:  # a head written before revisions
        require("attribute_not_exists(#revision)", "revision")
    if steps.release is not None:
        require("#inFlight = :held", "inFlight", held=steps.release)
    if steps.unpause:
        require("#state = :paused", "state", paused=KeyState.PAUSED.value)
    if (steps.claim or steps.replay) is not None:
        if steps.release is None:
            require("attribute_not_exists(#inFlight)", "inFlight")
        if not steps.unpause:
            require(
                "attribute_not_exists(#state) OR #state = :flowing", "state", flowing=KeyState.FLOWING.value
            )
    request: dict[str, Any] = {
        "ConditionExpression": " AND ".join(conditions),
        "ExpressionAttributeNames": names,
    }
    if values:
        request["ExpressionAttributeValues"] = values
    return request


def released_alone_condition(message_id: str) -> dict[str, Any]:
    """A release without a read: the head holds ``message_id``, flows, has nothing queued behind
    it, and was written with revisions (a head from before may have messages waiting unmarked)."""
    return {
        "ConditionExpression": (
            "attribute_exists(#revision) AND #inFlight = :held AND #state = :flowing"
            " AND attribute_not_exists(#queued)"
        ),
        "ExpressionAttributeNames": {
            "#revision": "revision",
            "#inFlight": "inFlight",
            "#state": "state",
            "#queued": "queued",
        },
        "ExpressionAttributeValues": {":held": {"S": message_id}, ":flowing": {"S": KeyState.FLOWING.value}},
    }
