"""Numbers in an ordering key's line (docs/decisions/0041-ordering-keys.md): each keyed publish
to a room takes the next numbers of its key — one atomic ADD on a small counter item per key and
request — so that a key's messages line up in the order their publishes were accepted, whatever
the publishing functions' clocks say.

| item    | PK                                         | SK        |
| ------- | ------------------------------------------ | --------- |
| counter | ``TENANT#<tenant>#ROOM#<roomId>#OKEY#<key>`` | ``NUMBERS`` |
"""

from __future__ import annotations

from roomcast.platform import TableAccess, key


class KeyNumbers(TableAccess):
    def take_ordering_numbers(self, tenant_id: str, room_id: str, ordering_key: str, count: int) -> int:
        """Take ``count`` fresh numbers of a room's key; the last of them (the first is
        ``last - count + 1``). A number taken by a publish that then failed is a gap, never a
        duplicate."""
        answer = self._client.update_item(
            TableName=self._table_name,
            Key=key(f"TENANT#{tenant_id}#ROOM#{room_id}#OKEY#{ordering_key}", "NUMBERS"),
            UpdateExpression="ADD #next :count",
            ExpressionAttributeNames={"#next": "next"},
            ExpressionAttributeValues={":count": {"N": str(count)}},
            ReturnValues="UPDATED_NEW",
        )
        return int(answer["Attributes"]["next"]["N"])
