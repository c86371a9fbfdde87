"""Dead letters in DynamoDB, one per message per subscription (both PUSH and PULL).

| PK                                               | SK              |
| ------------------------------------------------ | --------------- |
| ``TENANT#<tenant>#ROOM#<room>#SUB#<sub>#DEAD``   | ``<messageId>`` |

The item keeps the whole envelope, so a replay needs nothing else. Kept 30 days.

A replay claims each dead letter before it sends it (``replayClaimId`` and
``replayClaimedUntilMs``, a conditional write) and deletes only what it claimed, after sending:
two replays never both send one letter, and a replay that crashed after its claim leaves the
letter to be claimed again once the claim has run out (sent twice at worst, never lost).
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Final

from botocore.exceptions import ClientError

from roomcast.dead_letters.ports import Claimed, DeadLetter, ReplayClaim
from roomcast.messages import Envelope
from roomcast.platform import (
    Page,
    Position,
    TableAccess,
    camel_fields,
    from_camel_fields,
    ids,
    is_condition_failure,
    items,
    key,
)

DEAD_LETTER_RETENTION_SECONDS: Final = 30 * 24 * 3600
# Conditional writes (one per letter) made at once by one replay.
_PARALLEL_WRITES: Final = 8
_MESSAGE_ID: Final = re.compile(ids.MESSAGE_ID_PATTERN)


def dead_letter_partition_key(tenant_id: str, room_id: str, subscription_id: str) -> str:
    return f"TENANT#{tenant_id}#ROOM#{room_id}#SUB#{subscription_id}#DEAD"


class DeadLetterTable(TableAccess):
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
        self, tenant_id: str, room_id: str, subscription_id: str, limit: int, start: Position | None
    ) -> Page[DeadLetter]:
        """A page of the subscription's dead letters by message id; a position is the last message
        id of a page."""
        partition = dead_letter_partition_key(tenant_id, room_id, subscription_id)
        page = self._query_page(partition, limit, start, "", _MESSAGE_ID)
        return Page([_from_item(item) for item in page.items], page.next_position)

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

    def claim(
        self, tenant_id: str, room_id: str, subscription_id: str, message_ids: list[str], claim: ReplayClaim
    ) -> Claimed:
        """Claim these dead letters for one replay: a letter is held by one replay at a time; a
        claim that has run out (its replay crashed) is taken over."""
        partition = dead_letter_partition_key(tenant_id, room_id, subscription_id)

        def claim_one(message_id: str) -> DeadLetter | None:
            try:
                response = self._client.update_item(
                    TableName=self._table_name,
                    Key=key(partition, message_id),
                    UpdateExpression="SET replayClaimId = :claim, replayClaimedUntilMs = :until",
                    ConditionExpression="attribute_exists(PK) AND (attribute_not_exists(replayClaimedUntilMs)"
                    " OR replayClaimedUntilMs <= :now)",
                    ExpressionAttributeValues={
                        ":claim": {"S": claim.claim_id},
                        ":until": {"N": str(claim.held_until_ms)},
                        ":now": {"N": str(claim.made_at_ms)},
                    },
                    ReturnValues="ALL_NEW",
                )
            except ClientError as error:
                if is_condition_failure(error):
                    return None
                raise
            return _from_item(items.from_attributes(response["Attributes"]))

        wanted = list(dict.fromkeys(message_ids))
        answers = dict(zip(wanted, self._each(claim_one, wanted), strict=True))
        refused = [m for m, letter in answers.items() if letter is None]
        existing = {
            d.envelope.message_id for d in self.get_many(tenant_id, room_id, subscription_id, refused)
        }
        return Claimed(
            [letter for letter in answers.values() if letter is not None],
            [m for m in refused if m in existing],
        )

    def delete_claimed(
        self, tenant_id: str, room_id: str, subscription_id: str, message_ids: list[str], claim: ReplayClaim
    ) -> None:
        """Delete the dead letters this claim still holds (not one that died again meanwhile, nor
        one another replay took over after the claim ran out)."""
        partition = dead_letter_partition_key(tenant_id, room_id, subscription_id)

        def delete_one(message_id: str) -> None:
            try:
                self._client.delete_item(
                    TableName=self._table_name,
                    Key=key(partition, message_id),
                    ConditionExpression="replayClaimId = :claim",
                    ExpressionAttributeValues={":claim": {"S": claim.claim_id}},
                )
            except ClientError as error:
                if not is_condition_failure(error):
                    raise

        self._each(delete_one, list(dict.fromkeys(message_ids)))

    @staticmethod
    def _each[T](write: Callable[[str], T], message_ids: list[str]) -> list[T]:
        if len(message_ids) <= 1:
            return [write(m) for m in message_ids]
        with ThreadPoolExecutor(max_workers=min(_PARALLEL_WRITES, len(message_ids))) as pool:
            return list(pool.map(write, message_ids))


def _from_item(item: items.Item) -> DeadLetter:
    return from_camel_fields(DeadLetter, {**item, "envelope": Envelope.from_json(item["envelope"])})
