"""The messages' ports: messages and their delivery records as services see them
(roomcast.messages.store implements ``MessageRecords`` on DynamoDB), and the sending of envelopes
(roomcast.messages.sender implements ``Sender`` on SQS), with the types they exchange."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from roomcast.messages.envelope import Envelope
from roomcast.messages.model import (
    Delivery,
    DeliveryStatus,
    Message,
    MessageFilter,
    OwedFilter,
    TrackedMessage,
)
from roomcast.platform import Page, Position


class MessageRecords(Protocol):
    def put_messages(
        self,
        batch: Sequence[tuple[Message, Sequence[Delivery]]],
        *,
        if_new: bool = False,
        left_to_outbox: bool = False,
        places: Callable[[Message], Sequence[Mapping[str, Any]]] | None = None,
    ) -> dict[str, Exception]: ...
    def record_first_tries(self, deliveries: Sequence[Delivery]) -> None: ...
    def update_delivery(
        self, delivery: Delivery, *, force: bool = False, only_if_attempts_below: int | None = None
    ) -> bool: ...
    def update_deliveries(self, deliveries: Sequence[Delivery]) -> dict[str, DeliveryStatus]: ...
    def claim_retry(self, delivery: Delivery, claim: str, now_ms: int) -> bool: ...
    def move_claimed_retry(self, delivery: Delivery, claim: str) -> bool: ...
    def get_message(self, tenant_id: str, message_id: str) -> TrackedMessage: ...
    def get_messages(self, tenant_id: str, message_ids: Sequence[str]) -> dict[str, Message]: ...
    def get_delivery(self, tenant_id: str, message_id: str, subscription_id: str) -> Delivery | None: ...
    def list_room_messages(
        self, tenant_id: str, room_id: str, limit: int, start: Position | None, wanted: MessageFilter
    ) -> Page[TrackedMessage]: ...
    def open_deliveries(
        self, tenant_id: str, owed: OwedFilter, start: Position | None, limit: int
    ) -> DeliveryPage: ...


class Sender(Protocol):
    def send(self, outgoing: Sequence[Outgoing]) -> None: ...
    def try_send(self, outgoing: Sequence[Outgoing]) -> list[Unsent]: ...


@dataclass(frozen=True)
class Unsent:
    """An envelope ``try_send`` could not send, and why."""

    outgoing: Outgoing
    reason: str
    queue_missing: bool  # the queue does not exist (a PULL subscription deleted meanwhile)

    @property
    def subscription_id(self) -> str | None:
        """The destination it was for (None for a body that is not an envelope)."""
        envelope = self.outgoing.envelope
        return None if isinstance(envelope, str) else envelope.subscription_id


@dataclass(frozen=True)
class Outgoing:
    queue_url: str
    envelope: Envelope | str  # a str is sent as it is (a body that is not an envelope, kept as evidence)
    delay_seconds: int = 0
    group_id: str | None = None  # fair queues: one noisy group cannot starve the others


class TransactionNotApplied(RuntimeError):
    """A transaction DynamoDB cancelled for another reason than a condition (another transaction
    on the same items, throttling): nothing of it was written."""


class MessageExists(RuntimeError):
    """A message with this id is already stored (a publish retried under its Idempotency-Key);
    ``stored`` is that message when DynamoDB returned it with the refusal."""

    def __init__(self, message_id: str, stored: Message | None = None) -> None:
        super().__init__(message_id)
        self.stored = stored


@dataclass(frozen=True)
class DeliveryPage:
    """Open deliveries found in a page of a room's messages (message id, record), and the position
    of the next page (None at the end)."""

    found: list[tuple[str, Delivery]]
    next_position: Position | None
    messages: dict[str, Message] = field(default_factory=dict)  # those read on the way, by id
