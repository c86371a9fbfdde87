"""PULL delivery: hand out due messages, ack, nack with backoff, extend the ack wait, ack-wait
timeouts, dead letters, expiry. Waits longer than SQS allows (12 h of visibility) re-send the
message with the remaining delay. Order everywhere: send first, delete second, record third — a
crash duplicates, never loses.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from pull_api import acknowledging, pulling
from pull_api.acknowledging import AckResult, ExtendResult, NackResult
from pull_api.pulling import Handout
from pull_api.work import PullWork


@dataclass(frozen=True)
class Pulled:
    """What a pull handed out and, when it carried receipts to ack, what their ack did."""

    handed: list[Handout]
    acked: AckResult | None = None


@dataclass
class PullService:
    work: PullWork

    def pull(
        self,
        tenant_id: str,
        room_id: str,
        subscription_id: str,
        max_messages: int,
        wait_seconds: int,
        ack: list[str] | None = None,
    ) -> Pulled:
        """A pull, acking ``ack`` (receipts of earlier pulls) on the way: one read of the
        subscription and every receipt verified before anything changes (400 at the first bad one);
        then the ack's records → its delete, and the pull's receive, side by side — they touch
        different messages, and each keeps its own order (docs/decisions/0026-pull-ack-waits.md)."""
        destination = self.work.destination(tenant_id, room_id, subscription_id)
        if not ack:  # None: a plain pull; []: nothing to ack, answered as an ack of nothing
            handed = pulling.hand_out(self.work, destination, max_messages, wait_seconds)
            return Pulled(handed, None if ack is None else AckResult())
        receipts = acknowledging.verified(self.work, tenant_id, room_id, subscription_id, ack, "ack")
        # Leaving the block waits for the ack, also when the pull fails: its writes end before the answer.
        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="ack") as pool:
            acking = pool.submit(acknowledging.acknowledge, self.work, destination, tenant_id, receipts)
            handed = pulling.hand_out(self.work, destination, max_messages, wait_seconds)
        return Pulled(handed, acking.result())

    def ack(self, tenant_id: str, room_id: str, subscription_id: str, receipts: list[str]) -> AckResult:
        return acknowledging.ack(self.work, tenant_id, room_id, subscription_id, receipts)

    def nack(self, tenant_id: str, room_id: str, subscription_id: str, receipts: list[str]) -> NackResult:
        return acknowledging.nack(self.work, tenant_id, room_id, subscription_id, receipts)

    def extend(
        self, tenant_id: str, room_id: str, subscription_id: str, receipts: list[str], ack_wait_ms: int
    ) -> ExtendResult:
        return acknowledging.extend(self.work, tenant_id, room_id, subscription_id, receipts, ack_wait_ms)
