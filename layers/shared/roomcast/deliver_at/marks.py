"""A scheduled message's two ends on its item (roomcast.deliver_at.rules): released by one
release task, or cancelled before. Each is one conditional UpdateItem of the message item, so the
two exclude each other: a cancelled message is never released, a released one never cancelled.
Either removes the item from the ``Scheduled`` index. The update costs write units by the item's
size, like the publish's own write (docs/decisions/0039-deliver-at.md)."""

from __future__ import annotations

from typing import Any

from botocore.exceptions import ClientError

from roomcast.messages import MESSAGE_SORT_KEY, Message, message_from_item, message_partition_key
from roomcast.platform import Conflict, NotFound, TableAccess, is_condition_failure, items, key

_NAMES = {"#released": "releasedBy", "#cancelled": "cancelledAt", "#at": "deliverAtMs"}


class ScheduleMarks(TableAccess):
    def claim_release(self, tenant_id: str, message_id: str, release_id: str) -> Message | None:
        """Mark a scheduled message released by ``release_id`` (again, for the same release: a
        task handed back after a crash); the message as stored then. None when it cannot be
        released by this one: cancelled, released by another release, or gone."""
        try:
            return self._update(
                tenant_id,
                message_id,
                "SET #released = :release REMOVE GSI2PK, GSI2SK",
                "attribute_exists(#at) AND attribute_not_exists(#cancelled)"
                " AND (attribute_not_exists(#released) OR #released = :release)",
                {":release": {"S": release_id}},
            )
        except ClientError as error:
            if is_condition_failure(error):
                return None
            raise

    def cancel_scheduled(self, tenant_id: str, message_id: str, cancelled_at: str) -> Message:
        """Cancel a scheduled message before its release; the message as stored then. Cancelling
        a cancelled message answers it as it is. NotFound when there is no such message; Conflict
        when it is not scheduled, or already released (its deliveries have started)."""
        try:
            return self._update(
                tenant_id,
                message_id,
                "SET #cancelled = :at REMOVE GSI2PK, GSI2SK",
                "attribute_exists(#at) AND attribute_not_exists(#released)"
                " AND attribute_not_exists(#cancelled)",
                {":at": {"S": cancelled_at}},
            )
        except ClientError as error:
            if not is_condition_failure(error):
                raise
            old: Any = error.response.get("Item")
            if not old:
                raise NotFound(f"message {message_id} not found") from error
            stored = message_from_item(items.from_attributes(old))
            if stored.cancelled_at is not None:
                return stored
            reason = "it was not scheduled" if stored.deliver_at_ms is None else "its delivery has started"
            raise Conflict(
                f"message {message_id} cannot be cancelled: {reason}", code="not_scheduled"
            ) from error

    def _update(
        self, tenant_id: str, message_id: str, expression: str, condition: str, values: dict[str, Any]
    ) -> Message:
        response = self._client.update_item(
            TableName=self._table_name,
            Key=key(message_partition_key(tenant_id, message_id), MESSAGE_SORT_KEY),
            UpdateExpression=expression,
            ConditionExpression=condition,
            ExpressionAttributeNames=_NAMES,
            ExpressionAttributeValues=values,
            ReturnValues="ALL_NEW",
            ReturnValuesOnConditionCheckFailure="ALL_OLD",
        )
        return message_from_item(items.from_attributes(response["Attributes"]))
