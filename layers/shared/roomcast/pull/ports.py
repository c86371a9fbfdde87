"""The PULL queues' ports and the types they exchange (roomcast.pull.queues implements them on SQS)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol


class PullQueueAdmin(Protocol):
    def create_pull_queues(
        self, subscription_id: str, tenant_id: str, room_id: str, ack_wait_ms: int
    ) -> PullQueues: ...
    def set_ack_wait(self, queue_url: str, ack_wait_ms: int) -> None: ...
    def purge(self, queue_url: str) -> None: ...
    def delete_queues(self, queue_urls: list[str]) -> None: ...


class PullQueue(Protocol):
    def receive(
        self, queue_url: str, max_messages: int, wait_seconds: int, visibility_seconds: int
    ) -> list[Received]: ...
    def delete(self, queue_url: str, handles: list[str]) -> dict[str, str]: ...
    def hide(self, queue_url: str, visibility: list[tuple[str, int]]) -> dict[str, str]: ...


@dataclass(frozen=True)
class PullQueues:
    queue_url: str
    dead_letter_queue_url: str


@dataclass(frozen=True)
class Received:
    handle: str
    body: str
    receive_count: int  # 1 on the first receive
