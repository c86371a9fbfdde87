"""Lambda's SQS event source mapping, locally: poll, batch, invoke, delete what succeeded.

Honours the template's BatchSize, MaximumBatchingWindowInSeconds, ReportBatchItemFailures and
ScalingConfig.MaximumConcurrency. As on AWS: a function error leaves the whole batch on the queue
(it comes back after the visibility timeout); with ReportBatchItemFailures only the reported
messages stay; an invalid failure report counts as a failure of the whole batch.

The pollers long-poll as Lambda's do (``WaitTimeSeconds`` 20): an idle queue costs each poller
three ``ReceiveMessage`` calls a minute, and a message is handed over as soon as it is visible.
(``roomcast_dev.moto_long_polls`` ends a long poll whose queue is deleted or reset.)
"""

from __future__ import annotations

import hashlib
import logging
import math
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from roomcast_dev.functions import FunctionError
from roomcast_dev.pollers import Poller
from roomcast_dev.template import SqsTrigger

# Diagnostics of the local stack's background threads: logged, not printed, so that they reach
# `make run`'s terminal (logging is set up there) and pytest's log capture, never a test's stdout.
_log = logging.getLogger(__name__)

if TYPE_CHECKING:
    from mypy_boto3_sqs import SQSClient
    from mypy_boto3_sqs.type_defs import MessageTypeDef

SQS_MAX_RECEIVE = 10
LONG_POLL_SECONDS = 20  # what Lambda's pollers ask for, the most SQS allows
Invoke = Callable[[str, dict[str, Any]], Any]


def sqs_record(message: MessageTypeDef, queue_arn: str, region: str) -> dict[str, Any]:
    """One record of an SQS event, shaped as Lambda delivers it."""
    attributes = dict(message.get("Attributes", {}))
    message_attributes: dict[str, Any] = {
        name: {
            "stringValue": value.get("StringValue"),
            "binaryValue": value.get("BinaryValue"),
            "stringListValues": [],
            "binaryListValues": [],
            "dataType": value["DataType"],
        }
        for name, value in message.get("MessageAttributes", {}).items()
    }
    body = message.get("Body", "")
    return {
        "messageId": message["MessageId"],
        "receiptHandle": message["ReceiptHandle"],
        "body": body,
        "attributes": attributes,
        "messageAttributes": message_attributes,
        "md5OfBody": message.get("MD5OfBody")
        or hashlib.md5(body.encode(), usedforsecurity=False).hexdigest(),
        "eventSource": "aws:sqs",
        "eventSourceARN": queue_arn,
        "awsRegion": region,
    }


def failed_message_ids(result: Any, batch_ids: set[str]) -> set[str] | None:
    """Message ids a ReportBatchItemFailures response asks to keep; None = the whole batch failed."""
    if result is None:
        return set()
    if not isinstance(result, dict):
        return None
    failures = result.get("batchItemFailures")
    if failures is None:
        return set()
    if not isinstance(failures, list):
        return None
    kept: set[str] = set()
    for failure in failures:
        identifier = failure.get("itemIdentifier") if isinstance(failure, dict) else None
        if not isinstance(identifier, str) or not identifier or identifier not in batch_ids:
            return None  # Lambda treats a malformed report as a failure of the whole batch
        kept.add(identifier)
    return kept


class SqsPoller(Poller):
    """Polls one queue for one function with ``maximum_concurrency`` concurrent pollers."""

    kind = "sqs"

    def __init__(
        self,
        trigger: SqsTrigger,
        queue_url: str,
        queue_arn: str,
        region: str,
        client_factory: Callable[[], SQSClient],
        invoke: Invoke,
        pollers: int | None = None,
    ) -> None:
        # Lambda scales pollers up to MaximumConcurrency; a laptop needs only a few.
        threads = min(pollers or trigger.maximum_concurrency, trigger.maximum_concurrency)
        super().__init__(trigger.function_id, threads, join_seconds=LONG_POLL_SECONDS + 5)
        self.trigger = trigger
        self._queue_url = queue_url
        self._queue_arn = queue_arn
        self._region = region
        self._client_factory = client_factory
        self._invoke = invoke

    def _open(self) -> SQSClient:
        return self._client_factory()

    def _step(self, clients: SQSClient) -> None:
        batch = self._collect(clients)
        if batch:
            self._deliver(clients, batch)

    def _collect(self, client: SQSClient) -> list[MessageTypeDef]:
        """Up to BatchSize messages, waiting at most the batching window once the first arrives."""
        batch: list[MessageTypeDef] = []
        deadline: float | None = None
        while len(batch) < self.trigger.batch_size and not self._stopping.is_set():
            remaining = None if deadline is None else deadline - time.monotonic()
            if remaining is not None and remaining <= 0:
                break
            # Within the batching window, a long poll of the window's rest (whole seconds, as SQS
            # takes them): it answers as soon as a message comes, so a window costs a receive or two.
            wait_seconds = (
                LONG_POLL_SECONDS
                if remaining is None
                else max(1, min(LONG_POLL_SECONDS, math.ceil(remaining)))
            )
            received = client.receive_message(
                QueueUrl=self._queue_url,
                MaxNumberOfMessages=min(SQS_MAX_RECEIVE, self.trigger.batch_size - len(batch)),
                WaitTimeSeconds=wait_seconds,
                MessageSystemAttributeNames=["All"],
                MessageAttributeNames=["All"],
            ).get("Messages", [])
            batch.extend(received)
            if batch and deadline is None:
                if self.trigger.batching_window_seconds <= 0:
                    break
                deadline = time.monotonic() + self.trigger.batching_window_seconds
            if not received and batch and self.trigger.batching_window_seconds <= 0:
                break
        return batch

    def _deliver(self, client: SQSClient, batch: list[MessageTypeDef]) -> None:
        event = {"Records": [sqs_record(m, self._queue_arn, self._region) for m in batch]}
        self.invocations += 1
        try:
            result = self._invoke(self.trigger.function_id, event)
        except FunctionError as error:
            _log.warning(f"[sqs] {self.trigger.function_id} failed, batch stays on the queue: {error}")
            return
        batch_ids = {m["MessageId"] for m in batch}
        if self.trigger.report_batch_item_failures:
            kept = failed_message_ids(result, batch_ids)
            if kept is None:
                _log.warning(f"[sqs] {self.trigger.function_id}: malformed batchItemFailures, batch kept")
                return
        else:
            kept = set()
        done = [m for m in batch if m["MessageId"] not in kept]
        for start in range(0, len(done), SQS_MAX_RECEIVE):
            chunk = done[start : start + SQS_MAX_RECEIVE]
            client.delete_message_batch(
                QueueUrl=self._queue_url,
                Entries=[{"Id": str(i), "ReceiptHandle": m["ReceiptHandle"]} for i, m in enumerate(chunk)],
            )
