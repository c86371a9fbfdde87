"""PULL delivery: hand out due messages, ack, nack with backoff, extend the ack wait, ack-wait
timeouts, dead letters, expiry. Waits longer than SQS allows (12 h of visibility) re-send the
message with the remaining delay. Order everywhere: send first, delete second, record third — a
crash duplicates, never loses.
"""

from __future__ import annotations

from dataclasses import dataclass

from pull_api import acknowledging, pulling
from pull_api.acknowledging import AckResult, ExtendResult, NackResult
from pull_api.pulling import Handout
from pull_api.work import PullWork


@dataclass
class PullService:
    work: PullWork

    def pull(
        self, tenant_id: str, room_id: str, subscription_id: str, max_messages: int, wait_seconds: int
    ) -> list[Handout]:
        return pulling.pull(self.work, tenant_id, room_id, subscription_id, max_messages, wait_seconds)

    def ack(self, tenant_id: str, room_id: str, subscription_id: str, receipts: list[str]) -> AckResult:
        return acknowledging.ack(self.work, tenant_id, room_id, subscription_id, receipts)

    def nack(self, tenant_id: str, room_id: str, subscription_id: str, receipts: list[str]) -> NackResult:
        return acknowledging.nack(self.work, tenant_id, room_id, subscription_id, receipts)

    def extend(
        self, tenant_id: str, room_id: str, subscription_id: str, receipts: list[str], ack_wait_ms: int
    ) -> ExtendResult:
        return acknowledging.extend(self.work, tenant_id, room_id, subscription_id, receipts, ack_wait_ms)
