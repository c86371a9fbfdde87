"""The event-type catalog in DynamoDB (roomcast.event_types.model).

| item                         | PK                  | SK                        |
| ---------------------------- | ------------------- | ------------------------- |
| an event type of the tenant  | ``TENANT#<tenant>`` | ``EVENTTYPE#<name>``      |
| a schema, by its text's hash | ``TENANT#<tenant>`` | ``EVENTSCHEMA#<sha256>``  |
| the tenant's event-type count| ``TENANT#<tenant>`` | ``EVENTTYPES``            |

An event type names its schemas by digest (``schemaDigests``: version -> digest), so what a publish
reads is the small event-type item; a schema is read only by a container that has not compiled it
yet. Schemas are written in the same transaction as the event type that names them and never
change (their key is their content), so a reader never meets a digest without its schema.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, Final

from roomcast.event_types.model import NAME_PATTERN, EventType
from roomcast.platform import (
    Conflict,
    LimitExceeded,
    NotFound,
    Page,
    Position,
    TableAccess,
    camel_fields,
    from_camel_fields,
    items,
    key,
    limits,
)

_TYPE_PREFIX: Final = "EVENTTYPE#"
_SCHEMA_PREFIX: Final = "EVENTSCHEMA#"
_COUNT_SORT_KEY: Final = "EVENTTYPES"  # the tenant's event-type count, archived ones included
_COUNT: Final = "eventTypeCount"
_NAME: Final = re.compile(NAME_PATTERN)


class EventTypeTable(TableAccess):
    def create(self, event_type: EventType, schemas: Mapping[str, str]) -> None:
        """Store a new event type with its schemas (digest -> text), in one transaction with the
        tenant's event-type count: Conflict when the tenant has one of that name (archived ones
        too), LimitExceeded at MAX_CATALOG_EVENT_TYPES (counted in the transaction, so creates
        racing at the limit cannot both pass)."""
        count = {
            "Update": {
                "TableName": self._table_name,
                "Key": key(items.tenant_key(event_type.tenant_id), _COUNT_SORT_KEY),
                "UpdateExpression": f"ADD {_COUNT} :one",
                "ConditionExpression": f"attribute_not_exists({_COUNT}) OR {_COUNT} < :most",
                "ExpressionAttributeValues": {
                    ":one": {"N": "1"},
                    ":most": {"N": str(limits.MAX_CATALOG_EVENT_TYPES)},
                },
            }
        }
        failed = self._write(event_type, schemas, {"ConditionExpression": "attribute_not_exists(PK)"}, count)
        if failed == 1:
            most = limits.MAX_CATALOG_EVENT_TYPES
            raise LimitExceeded(f"a tenant's catalog holds at most {most} event types")
        if failed is not None:
            raise Conflict(f"event type {event_type.name} exists already: change it with PATCH")

    def replace(self, event_type: EventType, expected_updated_at: str, schemas: Mapping[str, str]) -> None:
        """Store a changed event type with its new schemas, unless it changed since it was read at
        ``expected_updated_at`` (Conflict: read it again)."""
        condition = {
            "ConditionExpression": "updatedAt = :seen",
            "ExpressionAttributeValues": {":seen": {"S": expected_updated_at}},
        }
        if self._write(event_type, schemas, condition) is not None:
            raise Conflict(f"event type {event_type.name} changed meanwhile: read it again")

    def get(self, tenant_id: str, name: str) -> EventType:
        found = self.find(tenant_id, [name]).get(name)
        if found is None:
            raise NotFound(f"event type {name[:128]} not found")
        return found

    def find(self, tenant_id: str, names: Sequence[str]) -> dict[str, EventType]:
        """The tenant's event types of these names (archived ones included), by name."""
        valid = [n for n in dict.fromkeys(names) if _NAME.match(n) and len(n) <= limits.MAX_NAME_LENGTH]
        if not valid:
            return {}
        tenant = items.tenant_key(tenant_id)
        if len(valid) == 1:
            response = self._client.get_item(
                TableName=self._table_name, Key=key(tenant, _TYPE_PREFIX + valid[0]), ConsistentRead=True
            )
            found = [items.from_attributes(response["Item"])] if "Item" in response else []
        else:
            found = self._batch_get([key(tenant, _TYPE_PREFIX + n) for n in valid])
        return {event_type.name: event_type for event_type in map(_event_type, found)}

    def schemas(self, tenant_id: str, digests: Sequence[str]) -> dict[str, str]:
        """Schemas' text by digest."""
        tenant = items.tenant_key(tenant_id)
        found = self._batch_get([key(tenant, _SCHEMA_PREFIX + d) for d in dict.fromkeys(digests)])
        return {str(item["SK"]).removeprefix(_SCHEMA_PREFIX): str(item["schema"]) for item in found}

    def every(self, tenant_id: str) -> list[EventType]:
        """The tenant's whole catalog by name, archived event types included."""
        return [_event_type(item) for item in self._query_all(items.tenant_key(tenant_id), _TYPE_PREFIX)]

    def page(self, tenant_id: str, limit: int, start: Position | None) -> Page[EventType]:
        """A page of the tenant's event types by name; a position is the last name of a page."""
        page = self._query_page(items.tenant_key(tenant_id), limit, start, _TYPE_PREFIX, _NAME)
        return Page([_event_type(item) for item in page.items], page.next_position)

    def _write(
        self,
        event_type: EventType,
        schemas: Mapping[str, str],
        condition: dict[str, Any],
        *also: dict[str, Any],
    ) -> int | None:
        """The event type (on ``condition``, item 0), ``also`` (items 1…) and its new schemas, all
        or nothing (a schema never changes: its key is its content). None when written, else the
        failed item's index."""
        tenant = items.tenant_key(event_type.tenant_id)
        schema_puts = [
            {
                "Put": {
                    "TableName": self._table_name,
                    "Item": items.to_attributes(
                        {"PK": tenant, "SK": _SCHEMA_PREFIX + digest, "entity": "schema", "schema": text}
                    ),
                }
            }
            for digest, text in schemas.items()
        ]
        type_put = {
            "Put": {
                "TableName": self._table_name,
                "Item": items.to_attributes(_item(event_type)),
                **condition,
            }
        }
        return self._transact([type_put, *also, *schema_puts])


def _item(event_type: EventType) -> items.Item:
    return {
        "PK": items.tenant_key(event_type.tenant_id),
        "SK": _TYPE_PREFIX + event_type.name,
        "entity": "eventType",
        **camel_fields(event_type),
        "schemaDigests": dict(event_type.schema_digests),
    }


def _event_type(item: items.Item) -> EventType:
    return from_camel_fields(EventType, {**item, "schemaDigests": dict(item.get("schemaDigests") or {})})
