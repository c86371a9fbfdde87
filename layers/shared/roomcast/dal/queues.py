"""The SQS queues of PULL subscriptions: one queue and one dead-letter queue each."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from botocore.exceptions import ClientError

from roomcast.dal.aws import sqs_client

if TYPE_CHECKING:
    from mypy_boto3_sqs import SQSClient

# SQS's own limits, named.
SQS_MAX_RETENTION_SECONDS: Final = 14 * 24 * 3600
SQS_MAX_LONG_POLL_SECONDS: Final = 20


def visibility_seconds(ack_wait_ms: int) -> int:
    """SQS counts visibility in whole seconds: an ack wait is rounded up, never down."""
    return max(1, -(-ack_wait_ms // 1000))


@dataclass(frozen=True)
class PullQueues:
    queue_url: str
    dead_letter_queue_url: str


class QueueAdmin:
    """Creates and deletes per-subscription queues named ``<prefix><subscriptionId>[-dlq]``."""

    def __init__(self, queue_prefix: str, client: SQSClient | None = None) -> None:
        self._queue_prefix = queue_prefix
        self._explicit_client = client

    @property
    def _client(self) -> SQSClient:
        return self._explicit_client or sqs_client()

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
        dead_letter = self._client.create_queue(
            QueueName=f"{self._queue_prefix}{subscription_id}-dlq", Attributes=retention, tags=tags
        )["QueueUrl"]
        try:
            queue = self._client.create_queue(
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
        self._client.set_queue_attributes(
            QueueUrl=queue_url, Attributes={"VisibilityTimeout": str(visibility_seconds(ack_wait_ms))}
        )

    def delete_queues(self, queue_urls: list[str]) -> None:
        """Delete queues; one that is already gone is not an error."""
        for url in queue_urls:
            try:
                self._client.delete_queue(QueueUrl=url)
            except ClientError as error:
                if error.response.get("Error", {}).get("Code") not in {
                    "AWS.SimpleQueueService.NonExistentQueue",
                    "QueueDoesNotExist",
                }:
                    raise
