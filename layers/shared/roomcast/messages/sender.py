"""Sending envelopes to SQS: batched per queue, delays capped at SQS's 15 minutes."""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from roomcast.catalog import Lane, Subscription, SubscriptionType, lane_of
from roomcast.messages.envelope import Envelope
from roomcast.messages.ports import Outgoing, Unsent
from roomcast.platform import SqsAccess

if TYPE_CHECKING:
    from mypy_boto3_sqs import SQSClient

SQS_MAX_DELAY_SECONDS: Final = 900
SQS_MAX_VISIBILITY_SECONDS: Final = 12 * 3600
SQS_BATCH_MAX_ENTRIES: Final = 10
# SQS takes 1 MiB per batch; stay well under it whatever the attribute overhead.
SQS_BATCH_MAX_BYTES: Final = 900 * 1024
_RETRY_ROUNDS: Final = 3
_PARALLEL_BATCHES: Final = 8


class SendFailed(RuntimeError):
    """Some envelopes could not be sent after retries; nothing may be acknowledged."""


_QUEUE_MISSING_CODES: Final = frozenset({"AWS.SimpleQueueService.NonExistentQueue", "QueueDoesNotExist"})


def _queue_missing(error: Exception) -> bool:
    response = getattr(error, "response", None)
    code = response.get("Error", {}).get("Code", "") if isinstance(response, dict) else ""
    return code in _QUEUE_MISSING_CODES


def _reason(error: Exception) -> str:
    return f"{type(error).__name__}: {error}"[:300]


def delay_seconds(due_at_ms: int, now_ms: int) -> int:
    """SQS DelaySeconds for a due time: the remaining wait rounded up, at most 15 minutes."""
    remaining_ms = max(0, due_at_ms - now_ms)
    return min(SQS_MAX_DELAY_SECONDS, -(-remaining_ms // 1000))


@dataclass(frozen=True)
class QueueAddresses:
    """Where an envelope for a subscription is sent: a push lane's queue (roomcast.catalog.lanes),
    or the PULL subscription's own queue. Without a slow lane's queue, both lanes are the push queue."""

    push_queue_url: str
    slow_push_queue_url: str = ""

    @property
    def has_slow_lane(self) -> bool:
        return bool(self.slow_push_queue_url)

    def outgoing_for(
        self, subscription: Subscription, envelope: Envelope, delay_seconds: int = 0
    ) -> Outgoing:
        if subscription.type is SubscriptionType.PUSH:
            return self.push(envelope, delay_seconds, lane_of(subscription))
        return Outgoing(subscription.queue_url or "", envelope, delay_seconds)

    def push(self, envelope: Envelope, delay_seconds: int = 0, lane: Lane = Lane.FAST) -> Outgoing:
        """The lane's push queue; the group id (SQS fair queues) is the envelope's tenant, so that one
        busy tenant's backlog does not lengthen the others' wait."""
        slow = lane is Lane.SLOW and self.has_slow_lane
        queue_url = self.slow_push_queue_url if slow else self.push_queue_url
        return Outgoing(queue_url, envelope, delay_seconds, group_id=envelope.tenant_id)

    def lane_of_queue(self, queue_arn: str) -> Lane:
        """The lane an SQS record came from (its ``eventSourceARN``): the slow lane's queue has the
        name that ends the slow queue's URL."""
        slow_name = self.slow_push_queue_url.rstrip("/").rpartition("/")[2]
        return Lane.SLOW if slow_name and queue_arn.rpartition(":")[2] == slow_name else Lane.FAST


class EnvelopeSender(SqsAccess):
    def __init__(self, client: SQSClient | None = None) -> None:
        super().__init__(client)
        self.calls = 0

    def send(self, outgoing: Sequence[Outgoing]) -> None:
        """Send everything or raise SendFailed: batches of up to 10 per queue, sent in parallel."""
        batches = self._batches(outgoing)
        if len(batches) <= 1:
            for queue_url, batch in batches:
                self._send_batch(queue_url, batch)
            return
        with ThreadPoolExecutor(max_workers=min(_PARALLEL_BATCHES, len(batches))) as pool:
            for result in [pool.submit(self._send_batch, url, batch) for url, batch in batches]:
                result.result()

    def try_send(self, outgoing: Sequence[Outgoing]) -> list[Unsent]:
        """Send what can be sent; what could not (a batch SQS or the network refused after
        retries, a queue that no longer exists) is returned with the reason, not raised."""
        batches = self._batches(outgoing)
        unsent: list[Unsent] = []

        def attempt(queue_url: str, batch: list[tuple[Outgoing, str]]) -> None:
            try:
                self._send_batch(queue_url, batch)
            except Exception as error:
                unsent.extend(Unsent(item, _reason(error), _queue_missing(error)) for item, _ in batch)

        with ThreadPoolExecutor(max_workers=max(1, min(_PARALLEL_BATCHES, len(batches)))) as pool:
            list(pool.map(lambda pair: attempt(*pair), batches))
        return unsent

    @staticmethod
    def _batches(outgoing: Sequence[Outgoing]) -> list[tuple[str, list[tuple[Outgoing, str]]]]:
        by_queue: dict[str, list[Outgoing]] = defaultdict(list)
        for item in outgoing:
            by_queue[item.queue_url].append(item)
        batches: list[tuple[str, list[tuple[Outgoing, str]]]] = []
        for queue_url, entries in by_queue.items():
            batch: list[tuple[Outgoing, str]] = []
            size = 0
            for item in entries:
                body = item.envelope if isinstance(item.envelope, str) else item.envelope.to_json()
                if batch and (len(batch) == SQS_BATCH_MAX_ENTRIES or size + len(body) > SQS_BATCH_MAX_BYTES):
                    batches.append((queue_url, batch))
                    batch, size = [], 0
                batch.append((item, body))
                size += len(body)
            if batch:
                batches.append((queue_url, batch))
        return batches

    def _send_batch(self, queue_url: str, batch: list[tuple[Outgoing, str]]) -> None:
        pending = {str(index): pair for index, pair in enumerate(batch)}
        for round_number in range(_RETRY_ROUNDS):
            entries: list[Any] = []
            for entry_id, (item, body) in pending.items():
                entry: dict[str, Any] = {"Id": entry_id, "MessageBody": body}
                entry["DelaySeconds"] = item.delay_seconds
                if item.group_id:
                    entry["MessageGroupId"] = item.group_id
                entries.append(entry)
            response = self._sqs.send_message_batch(QueueUrl=queue_url, Entries=entries)
            self.calls += 1
            failed = response.get("Failed", [])
            permanent = [f for f in failed if f.get("SenderFault")]
            if permanent:
                raise SendFailed(f"SQS refused {len(permanent)} messages: {permanent[0].get('Message')}")
            pending = {f["Id"]: pending[f["Id"]] for f in failed}
            if not pending:
                return
            time.sleep(0.05 * 2**round_number)
        raise SendFailed(f"{len(pending)} messages could not be sent to {queue_url}")
