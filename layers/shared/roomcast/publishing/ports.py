"""Publishing's port: what a publish records of its first sends (roomcast.publishing.marks
implements it on DynamoDB)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol


class PublishMarkRecords(Protocol):
    def mark_sends_done(self, tenant_id: str, units: Sequence[str]) -> None: ...
    def sends_done(self, tenant_id: str, units: Sequence[str]) -> set[str]: ...
    def mark_unsent(self, tenant_id: str, message_id: str, subscription_ids: Sequence[str]) -> None: ...
    def mark_sent(self, tenant_id: str, message_id: str) -> None: ...
