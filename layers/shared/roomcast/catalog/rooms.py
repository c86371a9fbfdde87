"""Rooms in DynamoDB (item shapes: ``roomcast.platform.items``). Every call names the tenant, which is
part of every key: nothing can cross tenants. A room item also counts its subscriptions, marks its
deletion and versions its subscriptions (roomcast.catalog.keys)."""

from __future__ import annotations

from botocore.exceptions import ClientError

from roomcast.catalog import items as catalog_items
from roomcast.catalog.keys import (
    DELETION_JOB,
    DELETION_STARTED_AT,
    ROOM_ID,
    ROOM_KEY_ATTRIBUTES,
    ROOM_PREFIX,
    SUBSCRIPTION_COUNT,
    room_key,
)
from roomcast.catalog.model import Room
from roomcast.platform import NotFound, Page, Position, TableAccess, is_condition_failure, items


class RoomTable(TableAccess):
    def create_room(self, room: Room) -> None:
        self._client.put_item(
            TableName=self._table_name,
            Item=items.to_attributes(catalog_items.room_to_item(room) | {SUBSCRIPTION_COUNT: 0}),
            ConditionExpression="attribute_not_exists(PK)",
        )

    def get_room(self, tenant_id: str, room_id: str) -> Room:
        return catalog_items.room_from_item(self.room_item(tenant_id, room_id))

    def room_item(self, tenant_id: str, room_id: str) -> items.Item:
        """The room's item, read strongly consistently (NotFound without one)."""
        if not ROOM_ID.match(room_id):
            raise NotFound(f"room {room_id[:80]} not found")
        response = self._client.get_item(
            TableName=self._table_name, Key=room_key(tenant_id, room_id), ConsistentRead=True
        )
        if "Item" not in response:
            raise NotFound(f"room {room_id} not found")
        return items.from_attributes(response["Item"])

    def list_rooms(self, tenant_id: str, limit: int, start: Position | None) -> Page[Room]:
        """A page of the tenant's rooms by id; a position is the last room id of a page."""
        page = self._query_page(items.tenant_key(tenant_id), limit, start, ROOM_PREFIX, ROOM_ID)
        return Page([catalog_items.room_from_item(item) for item in page.items], page.next_position)

    def replace_room(self, room: Room) -> None:
        """Overwrite an existing room's fields (its subscription count and deletion mark stay);
        NotFound if it was deleted meanwhile."""
        fields = {k: v for k, v in catalog_items.room_to_item(room).items() if k not in ROOM_KEY_ATTRIBUTES}
        names = {f"#f{i}": name for i, name in enumerate(fields)}
        values = {f":f{i}": value for i, value in enumerate(fields.values()) if value is not None}
        expression = "SET " + ", ".join(f"#f{i} = :f{i}" for i in range(len(fields)) if f":f{i}" in values)
        if cleared := [f"#f{i}" for i in range(len(fields)) if f":f{i}" not in values]:
            expression += " REMOVE " + ", ".join(cleared)
        try:
            self._client.update_item(
                TableName=self._table_name,
                Key=room_key(room.tenant_id, room.id),
                UpdateExpression=expression,
                ConditionExpression="attribute_exists(PK)",
                ExpressionAttributeNames=names,
                ExpressionAttributeValues=items.to_attributes(values),
            )
        except ClientError as error:
            if is_condition_failure(error):
                raise NotFound(f"room {room.id} not found") from error
            raise

    def start_room_deletion(self, tenant_id: str, room_id: str, started_at: str, job_id: str) -> str:
        """Mark the room as being deleted by job ``job_id``: from now on no subscription can be
        added to it (so the subscriptions listed afterwards are all it has). Returns the job that
        deletes it: this one, or the one an earlier deletion started. NotFound if it is gone."""
        try:
            response = self._client.update_item(
                TableName=self._table_name,
                Key=room_key(tenant_id, room_id),
                UpdateExpression="SET #started = if_not_exists(#started, :now), "
                "#job = if_not_exists(#job, :job)",
                ConditionExpression="attribute_exists(PK)",
                ExpressionAttributeNames={"#started": DELETION_STARTED_AT, "#job": DELETION_JOB},
                ExpressionAttributeValues={":now": {"S": started_at}, ":job": {"S": job_id}},
                ReturnValues="ALL_NEW",
            )
        except ClientError as error:
            if is_condition_failure(error):
                raise NotFound(f"room {room_id} not found") from error
            raise
        return str(response.get("Attributes", {}).get(DELETION_JOB, {}).get("S") or job_id)

    def delete_room(self, tenant_id: str, room_id: str) -> None:
        self._client.delete_item(TableName=self._table_name, Key=room_key(tenant_id, room_id))
