"""Dead letters in DynamoDB, one per message per subscription (both PUSH and PULL).

| PK                                               | SK              |
| ------------------------------------------------ | --------------- |
| ``TENANT#<tenant>#ROOM#<room>#SUB#<sub>#DEAD``   | ``<messageId>`` |

The item keeps the whole envelope, so a replay needs nothing else. Kept 30 days.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from roomcast.dal import items
from roomcast.dal.aws import TableAccess
from roomcast.dal.pages import Page, decode_cursor, encode_cursor
from roomcast.domain.envelope import Envelope

if TYPE_CHECKING:
    pass

DEAD_LETTER_RETENTION_SECONDS: Final = 30 * 24 * 3600
BATCH_WRITE_MAX_ITEMS: Final = 25


@dataclass(frozen=True)
class DeadLetter:
    envelope: Envelope
    reason: str
    dead_at: str
    attempts: int


def dead_letter_partition_key(tenant_id: str, room_id: str, subscription_id: str) -> str:
    return f"TENANT#{tenant_id}#ROOM#{room_id}#SUB#{subscription_id}#DEAD"


class DeadLetterStore(TableAccess):
    def put(self, dead_letter: DeadLetter) -> None:
        envelope = dead_letter.envelope
        item = {
            "PK": dead_letter_partition_key(envelope.tenant_id, envelope.room_id, envelope.subscription_id),
            "SK": envelope.message_id,
            "entity": "deadLetter",
            "envelope": envelope.to_json(),
            "reason": dead_letter.reason,
            "deadAt": dead_letter.dead_at,
            "attempts": dead_letter.attempts,
            "ttl": int(time.time()) + DEAD_LETTER_RETENTION_SECONDS,
        }
        self._client.put_item(TableName=self._table_name, Item=items.to_attributes(item))

    def page(
        self, tenant_id: str, room_id: str, subscription_id: str, limit: int, cursor: str | None
    ) -> Page[DeadLetter]:
        partition = dead_letter_partition_key(tenant_id, room_id, subscription_id)
        kwargs: dict[str, Any] = {
            "TableName": self._table_name,
            "KeyConditionExpression": "PK = :pk",
            "ExpressionAttributeValues": {":pk": {"S": partition}},
            "Limit": limit,
            "ConsistentRead": True,
        }
        start = decode_cursor(cursor, partition)
        if start is not None:
            kwargs["ExclusiveStartKey"] = start
        response = self._client.query(**kwargs)
        found = [_from_item(items.from_attributes(raw)) for raw in response.get("Items", [])]
        return Page(found, encode_cursor(response.get("LastEvaluatedKey")))

    def get_many(
        self, tenant_id: str, room_id: str, subscription_id: str, message_ids: list[str]
    ) -> list[DeadLetter]:
        partition = dead_letter_partition_key(tenant_id, room_id, subscription_id)
        found: list[DeadLetter] = []
        for message_id in dict.fromkeys(message_ids):
            response = self._client.get_item(
                TableName=self._table_name,
                Key={"PK": {"S": partition}, "SK": {"S": message_id}},
                ConsistentRead=True,
            )
            if "Item" in response:
                found.append(_from_item(items.from_attributes(response["Item"])))
        return found

    def delete(self, tenant_id: str, room_id: str, subscription_id: str, message_ids: list[str]) -> None:
        partition = dead_letter_partition_key(tenant_id, room_id, subscription_id)
        unique = list(dict.fromkeys(message_ids))
        for start in range(0, len(unique), BATCH_WRITE_MAX_ITEMS):
            requests: list[Any] = [
                {"DeleteRequest": {"Key": {"PK": {"S": partition}, "SK": {"S": message_id}}}}
                for message_id in unique[start : start + BATCH_WRITE_MAX_ITEMS]
            ]
            while requests:
                response = self._client.batch_write_item(RequestItems={self._table_name: requests})
                requests = list(response.get("UnprocessedItems", {}).get(self._table_name, []))


def _from_item(item: items.Item) -> DeadLetter:
    return DeadLetter(
        envelope=Envelope.from_json(item["envelope"]),
        reason=item["reason"],
        dead_at=item["deadAt"],
        attempts=item["attempts"],
    )
