"""Ordering-key fields of a subscription, and the paused keys' list and resume (the public
contract; see /openapi.json)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, Field

from roomcast.api import NOT_NULL, ApiModel, examples
from roomcast.ordering import KeyHead
from roomcast.platform import iso_from_ms

OnDeadKeyName = Literal["pause", "skip"]


class OrderingFields(ApiModel):
    """A subscription's ordering: the messages of one ordering key one at a time, in publish order."""

    ordered: Annotated[bool | None, NOT_NULL] = Field(
        default=None,
        description="Give the messages of one orderingKey one at a time, in publish order: the next is "
        "not sent (PUSH) or handed out (PULL) until the previous one is delivered or acked, dead, "
        "expired or cleared. Messages without a key, and other keys, flow at once. Default false.",
    )
    onDeadKey: Annotated[OnDeadKeyName | None, NOT_NULL] = Field(
        default=None,
        description="When a key's message ends dead: `pause` (default) holds the key's later messages "
        "until resumeOrderingKey; `skip` goes on with the next one.",
    )


_PAUSED_EXAMPLE = {
    "orderingKey": "order-1001",
    "status": "paused",
    "deadMessageId": "msg_576e648137579110cd6d80e1bdbec8d3",
    "reason": "HTTP 500 after 5 attempts",
    "pausedAt": "2026-11-22T10:05:00.000Z",
    "inFlight": None,
}


class OrderingKeyView(BaseModel):
    model_config = examples(_PAUSED_EXAMPLE)

    orderingKey: str
    status: Literal["flowing", "paused"]
    deadMessageId: str | None = Field(
        default=None, description="Paused: the message that ended dead; its key waits behind it."
    )
    reason: str | None = Field(default=None, description="Paused: why that message ended dead.")
    pausedAt: str | None = None
    inFlight: str | None = Field(default=None, description="Flowing: the key's message on its way, if any.")

    @classmethod
    def of_head(cls, head: KeyHead) -> OrderingKeyView:
        paused_at = iso_from_ms(head.paused_at_ms) if head.paused_at_ms is not None else None
        return cls(
            orderingKey=head.ref.ordering_key,
            status="paused" if head.paused else "flowing",
            deadMessageId=head.dead_message_id,
            reason=head.paused_reason,
            pausedAt=paused_at,
            inFlight=head.in_flight,
        )


class OrderingKeyList(BaseModel):
    model_config = examples({"orderingKeys": [_PAUSED_EXAMPLE]})

    orderingKeys: list[OrderingKeyView] = Field(description="Longest paused first.")


class ResumeRequest(ApiModel):
    model_config = examples({}, {"skip": True})

    skip: bool = Field(
        default=False,
        description="true: drop the dead message (it stays a dead letter) and go on with the next; "
        "false: send the dead message again first (from attempt 0), keeping the order.",
    )
