"""The dead letters' port and the types it exchanges (roomcast.dead_letters.store implements it on
DynamoDB)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from roomcast.messages import Envelope
from roomcast.platform import Page, Position


class DeadLetterRecords(Protocol):
    def put(self, dead_letter: DeadLetter) -> None: ...
    def page(
        self, tenant_id: str, room_id: str, subscription_id: str, limit: int, start: Position | None
    ) -> Page[DeadLetter]: ...
    def get_many(
        self, tenant_id: str, room_id: str, subscription_id: str, message_ids: list[str]
    ) -> list[DeadLetter]: ...
    def delete(self, tenant_id: str, room_id: str, subscription_id: str, message_ids: list[str]) -> None: ...
    def claim(
        self, tenant_id: str, room_id: str, subscription_id: str, message_ids: list[str], claim: ReplayClaim
    ) -> Claimed: ...
    def delete_claimed(
        self, tenant_id: str, room_id: str, subscription_id: str, message_ids: list[str], claim: ReplayClaim
    ) -> None: ...


@dataclass(frozen=True)
class DeadLetter:
    envelope: Envelope
    reason: str
    dead_at: str
    attempts: int


@dataclass(frozen=True)
class ReplayClaim:
    """One replay's hold on the dead letters it sends: its id, when it was made, and until when it
    holds (after that another replay may take the letters over)."""

    claim_id: str
    made_at_ms: int
    held_until_ms: int


@dataclass(frozen=True)
class Claimed:
    """What a replay's claim got: the letters it now holds (in the order asked for), and those
    another replay holds; the others asked for do not exist."""

    letters: list[DeadLetter]
    held_elsewhere: list[str]
