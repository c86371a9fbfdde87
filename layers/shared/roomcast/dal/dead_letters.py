"""Dead letters in DynamoDB, one per message per subscription (both PUSH and PULL).

| PK                                               | SK              |
| ------------------------------------------------ | --------------- |
| ``TENANT#<tenant>#ROOM#<room>#SUB#<sub>#DEAD``   | ``<messageId>`` |

The item keeps the whole envelope, so a replay needs nothing else. Kept 30 days.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Final

from roomcast.dal import items
from roomcast.dal.pages import Page
from roomcast.dal.table import TableAccess, key
from roomcast.domain.envelope import Envelope
from roomcast.domain.fields import camel_fields, from_camel_fields

DEAD_LETTER_RETENTION_SECONDS: Final = 30 * 24 * 3600


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
        partition = dead_letter_partition_key(envelope.tenant_id, envelope.room_id, envelope.subscription_id)
        item = {
            "PK": partition,
            "SK": envelope.message_id,
            "entity": "deadLetter",
            **camel_fields(dead_letter),
        }
        # The envelope is kept as the JSON it travels as on SQS (a replay sends it again as it is).
        item |= {"envelope": envelope.to_json(), "ttl": int(time.time()) + DEAD_LETTER_RETENTION_SECONDS}
        self._client.put_item(TableName=self._table_name, Item=items.to_attributes(item))

    def page(
        self, tenant_id: str, room_id: str, subscription_id: str, limit: int, cursor: str | None
    ) -> Page[DeadLetter]:
        partition = dead_letter_partition_key(tenant_id, room_id, subscription_id)
        page = self._query_page(partition, limit, cursor)
        return Page([_from_item(item) for item in page.items], page.next_cursor)

    def get_many(
        self, tenant_id: str, room_id: str, subscription_id: str, message_ids: list[str]
    ) -> list[DeadLetter]:
        """The dead letters of these messages that exist, in the order asked for."""
        partition = dead_letter_partition_key(tenant_id, room_id, subscription_id)
        found = {
            letter.envelope.message_id: letter
            for letter in (
                _from_item(item) for item in self._batch_get([key(partition, m) for m in message_ids])
            )
        }
        return [found[m] for m in dict.fromkeys(message_ids) if m in found]

    def delete(self, tenant_id: str, room_id: str, subscription_id: str, message_ids: list[str]) -> None:
        partition = dead_letter_partition_key(tenant_id, room_id, subscription_id)
        self._batch_write([{"DeleteRequest": {"Key": key(partition, m)}} for m in dict.fromkeys(message_ids)])


def _from_item(item: items.Item) -> DeadLetter:
    return from_camel_fields(DeadLetter, {**item, "envelope": Envelope.from_json(item["envelope"])})
