"""The SQS queues of PULL subscriptions: one queue and one dead-letter queue each."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from botocore.exceptions import ClientError

from roomcast.platform import RoomcastError, SqsAccess
from roomcast.pull.ports import PullQueues, Received

if TYPE_CHECKING:
    from mypy_boto3_sqs import SQSClient

# SQS's own limits, named.
SQS_MAX_RETENTION_SECONDS: Final = 14 * 24 * 3600
SQS_MAX_LONG_POLL_SECONDS: Final = 20
SQS_BATCH_ENTRIES: Final = 10
# What SQS answers about one receipt handle it will not change: stale, or hidden too long.
_REFUSED_HANDLE_CODES: Final = frozenset(
    {
        "InvalidParameterValue",
        "ReceiptHandleIsInvalid",
        "MessageNotInflight",
        "AWS.SimpleQueueService.MessageNotInflight",
    }
)

# What SQS answers a receive when the queue already has its most messages in flight.
_OVER_LIMIT_CODES: Final = frozenset({"OverLimit", "AWS.SimpleQueueService.OverLimit"})


class TooManyInFlight(RoomcastError):
    """A pull while the subscription's queue has 120,000 messages pulled and not yet acked."""

    code, http_status = "too_many_in_flight", 429


def visibility_seconds(ack_wait_ms: int) -> int:
    """SQS counts visibility in whole seconds: an ack wait is rounded up, never down."""
    return max(1, -(-ack_wait_ms // 1000))


class QueueAdmin(SqsAccess):
    """Creates and deletes per-subscription queues named ``<prefix><subscriptionId>[-dlq]``."""

    def __init__(self, queue_prefix: str, client: SQSClient | None = None) -> None:
        super().__init__(client)
        self._queue_prefix = queue_prefix

    def create_pull_queues(
        self, subscription_id: str, tenant_id: str, room_id: str, ack_wait_ms: int
    ) -> PullQueues:
        tags = {
            "roomcast:tenant": tenant_id,
            "roomcast:room": room_id,
            "roomcast:subscription": subscription_id,
        }
        retention: dict[Any, str] = {
            "MessageRetentionPeriod": str(SQS_MAX_RETENTION_SECONDS),
            "SqsManagedSseEnabled": "true",
        }
        dead_letter = self._sqs.create_queue(
            QueueName=f"{self._queue_prefix}{subscription_id}-dlq", Attributes=retention, tags=tags
        )["QueueUrl"]
        try:
            queue = self._sqs.create_queue(
                QueueName=f"{self._queue_prefix}{subscription_id}",
                Attributes={
                    **retention,
                    "ReceiveMessageWaitTimeSeconds": str(SQS_MAX_LONG_POLL_SECONDS),
                    "VisibilityTimeout": str(visibility_seconds(ack_wait_ms)),
                },
                tags=tags,
            )["QueueUrl"]
        except Exception:
            self.delete_queues([dead_letter])
            raise
        return PullQueues(queue_url=queue, dead_letter_queue_url=dead_letter)

    def set_ack_wait(self, queue_url: str, ack_wait_ms: int) -> None:
        self._sqs.set_queue_attributes(
            QueueUrl=queue_url, Attributes={"VisibilityTimeout": str(visibility_seconds(ack_wait_ms))}
        )

    def purge(self, queue_url: str) -> None:
        """Empty a queue; SQS allows one purge a minute, a second one soon after is a no-op here."""
        try:
            self._sqs.purge_queue(QueueUrl=queue_url)
        except ClientError as error:
            if "PurgeQueueInProgress" not in error.response.get("Error", {}).get("Code", ""):
                raise

    def delete_queues(self, queue_urls: list[str]) -> None:
        """Delete queues; one that is already gone is not an error."""
        for url in queue_urls:
            try:
                self._sqs.delete_queue(QueueUrl=url)
            except ClientError as error:
                if error.response.get("Error", {}).get("Code") not in {
                    "AWS.SimpleQueueService.NonExistentQueue",
                    "QueueDoesNotExist",
                }:
                    raise


class QueueClient(SqsAccess):
    """Receive, delete and hide messages of one subscription's queue (the PULL operations)."""

    def receive(
        self, queue_url: str, max_messages: int, wait_seconds: int, visibility_seconds: int
    ) -> list[Received]:
        try:
            response = self._sqs.receive_message(
                QueueUrl=queue_url,
                MaxNumberOfMessages=max_messages,
                WaitTimeSeconds=min(wait_seconds, SQS_MAX_LONG_POLL_SECONDS),
                VisibilityTimeout=visibility_seconds,
                MessageSystemAttributeNames=["ApproximateReceiveCount"],
            )
        except ClientError as error:
            if error.response.get("Error", {}).get("Code", "") in _OVER_LIMIT_CODES:
                raise TooManyInFlight(
                    "this subscription has as many messages pulled and not yet acked as SQS holds "
                    "in flight (120,000): ack or nack some, or wait for their ack wait to end"
                ) from error
            raise
        return [
            Received(
                handle=m["ReceiptHandle"],
                body=m.get("Body", ""),
                receive_count=int(m.get("Attributes", {}).get("ApproximateReceiveCount", "1")),
            )
            for m in response.get("Messages", [])
        ]

    def delete(self, queue_url: str, handles: list[str]) -> dict[str, str]:
        """Delete by receipt handle; returns {handle: error} for those SQS refused."""
        failed: dict[str, str] = {}
        for start in range(0, len(handles), SQS_BATCH_ENTRIES):
            chunk = handles[start : start + SQS_BATCH_ENTRIES]
            response = self._sqs.delete_message_batch(
                QueueUrl=queue_url, Entries=[{"Id": str(i), "ReceiptHandle": h} for i, h in enumerate(chunk)]
            )
            for failure in response.get("Failed", []):
                failed[chunk[int(failure["Id"])]] = failure.get("Message") or failure.get("Code", "refused")
        return failed

    def hide(self, queue_url: str, visibility: list[tuple[str, int]]) -> dict[str, str]:
        """Make messages visible again only after the given seconds; returns {handle: error}."""
        failed: dict[str, str] = {}
        for start in range(0, len(visibility), SQS_BATCH_ENTRIES):
            chunk = visibility[start : start + SQS_BATCH_ENTRIES]
            try:
                response = self._sqs.change_message_visibility_batch(
                    QueueUrl=queue_url,
                    Entries=[
                        {"Id": str(i), "ReceiptHandle": handle, "VisibilityTimeout": seconds}
                        for i, (handle, seconds) in enumerate(chunk)
                    ],
                )
            except ClientError as error:
                # A message kept hidden past 12 hours from its receive can refuse the whole batch
                # (moto does so): ask entry by entry, so that only that message is reported.
                if error.response.get("Error", {}).get("Code") != "InvalidParameterValue":
                    raise
                failed |= self._hide_each(queue_url, chunk)
                continue
            for failure in response.get("Failed", []):
                failed[chunk[int(failure["Id"])][0]] = failure.get("Message") or failure.get(
                    "Code", "refused"
                )
        return failed

    def _hide_each(self, queue_url: str, visibility: list[tuple[str, int]]) -> dict[str, str]:
        failed: dict[str, str] = {}
        for handle, seconds in visibility:
            try:
                self._sqs.change_message_visibility(
                    QueueUrl=queue_url, ReceiptHandle=handle, VisibilityTimeout=seconds
                )
            except ClientError as error:
                refusal = error.response.get("Error", {})
                if refusal.get("Code") not in _REFUSED_HANDLE_CODES:
                    raise
                failed[handle] = refusal.get("Message") or refusal.get("Code", "refused")
        return failed
