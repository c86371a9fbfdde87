"""The ordering keys' ports: a message's place in a key's line, and a key's numbers
(roomcast.ordering.store and roomcast.ordering.numbers implement them on DynamoDB)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol

from roomcast.ordering.model import KeyRef


class KeyLines(Protocol):
    def add_place(self, ref: KeyRef, message_id: str, number: int) -> None: ...


class KeyNumberRecords(Protocol):
    def take_ordering_numbers(
        self, tenant_id: str, room_id: str, counts: Mapping[str, int]
    ) -> dict[str, int]: ...
