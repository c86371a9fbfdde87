"""What a publish records of its first sends on the table: a request's (or a finished message's)
sends-done mark, and the outbox's mark on a message item whose first envelopes were not all sent
(docs/decisions/0018-signed-receipts-and-outbox.md, 0028-every-delivery-ends.md)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from botocore.exceptions import ClientError

from roomcast.messages import (
    MESSAGE_SORT_KEY,
    OUTBOX_ATTRIBUTE,
    OUTBOX_UNSENT,
    SENDS_DONE_SORT_KEY,
    UNSENT_ATTRIBUTE,
    message_partition_key,
    sends_done_key,
    ttl_after,
)
from roomcast.platform import TableAccess, is_condition_failure, items, key, limits


class PublishMarks(TableAccess):
    def mark_sends_done(self, tenant_id: str, units: Sequence[str]) -> None:
        """Record that these publish units sent (or left to the outbox) all their first envelopes:
        a publish request (``pub_…``: every message it stored) or one message a retry finished
        (``msg_…``). One small item each, 25 a call, kept as long as an idempotency key can name
        one of their messages. A request without it died before the end: its publish check
        finishes its sends, and a keyed retry does too."""
        self._batch_write(
            [
                {
                    "PutRequest": {
                        "Item": items.to_attributes(
                            {
                                "PK": sends_done_key(tenant_id, unit),
                                "SK": SENDS_DONE_SORT_KEY,
                                "entity": "sendsDone",
                                "ttl": ttl_after(limits.IDEMPOTENCY_WINDOW_MS),
                            }
                        )
                    }
                }
                for unit in dict.fromkeys(units)
            ]
        )

    def sends_done(self, tenant_id: str, units: Sequence[str]) -> set[str]:
        """Which of these publish units recorded their sends done (one BatchGetItem per 100)."""
        keys = [key(sends_done_key(tenant_id, unit), SENDS_DONE_SORT_KEY) for unit in units]
        prefix = len(sends_done_key(tenant_id, ""))
        return {item["PK"][prefix:] for item in self._batch_get(keys)}

    def mark_unsent(self, tenant_id: str, message_id: str, subscription_ids: Sequence[str]) -> None:
        """The outbox: these destinations' first envelopes could not be sent. The change comes to
        the outbox function through the table's stream (``outbox`` = ``unsent``), which sends them."""
        ids = {"L": [{"S": subscription_id} for subscription_id in subscription_ids]}
        self._update_outbox_mark(
            tenant_id,
            message_id,
            "SET #outbox = :unsent, #unsent = :ids",
            {":unsent": {"S": OUTBOX_UNSENT}, ":ids": ids},
        )

    def mark_sent(self, tenant_id: str, message_id: str) -> None:
        """The outbox's work for a message is done: nothing of it is left unsent (a message item
        gone meanwhile, its time to live passed, is left gone)."""
        try:
            self._update_outbox_mark(tenant_id, message_id, "REMOVE #outbox, #unsent")
        except ClientError as error:
            if not is_condition_failure(error):
                raise

    def _update_outbox_mark(
        self, tenant_id: str, message_id: str, expression: str, values: dict[str, Any] | None = None
    ) -> None:
        """Set or remove the outbox mark of a stored message item (never creates one)."""
        extra: dict[str, Any] = {"ExpressionAttributeValues": values} if values else {}
        self._client.update_item(
            TableName=self._table_name,
            Key=key(message_partition_key(tenant_id, message_id), MESSAGE_SORT_KEY),
            UpdateExpression=expression,
            ConditionExpression="attribute_exists(PK)",
            ExpressionAttributeNames={"#outbox": OUTBOX_ATTRIBUTE, "#unsent": UNSENT_ATTRIBUTE},
            **extra,
        )
