"""API keys in DynamoDB: what the authorizer looks up, and the tenant's list of its keys.

| item                       | PK                         | SK               |
| -------------------------- | -------------------------- | ---------------- |
| the key, by its hash       | ``APIKEY#<sha256 of key>`` | ``APIKEY``       |
| the tenant's entry for it  | ``TENANT#<tenant>``        | ``KEY#<keyId>``  |
| the tenant's key count     | ``TENANT#<tenant>``        | ``APIKEYS``      |

A key's two items and the count change in one transaction. The count bounds the keys a tenant
holds (MAX_API_KEYS_PER_TENANT) and keeps its last key: a revocation goes through only while the
count is above one, so two revocations at once cannot both pass the check. Keys stored before the
list existed (only the hash item, no ``keyId``) still authenticate but are not listed, counted
or revocable through the API (docs/decisions/0003-api-keys.md).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Final

from roomcast.access import Scope, parse_scopes
from roomcast.platform import (
    API_KEY_ID_PATTERN,
    MAX_API_KEYS_PER_TENANT,
    Conflict,
    LimitExceeded,
    NotFound,
    Page,
    Position,
    TableAccess,
    hash_api_key,
    items,
    key,
    new_api_key,
    new_api_key_id,
)

_HASH_SORT_KEY: Final = "APIKEY"
_ENTRY_PREFIX: Final = "KEY#"
_COUNT_SORT_KEY: Final = "APIKEYS"
_KEY_COUNT: Final = "keyCount"
_KEY_ID: Final = re.compile(API_KEY_ID_PATTERN)


@dataclass(frozen=True)
class ApiKeyEntry:
    """A key as its tenant sees it (never the key itself): what it may do, on which rooms (None:
    every room)."""

    tenant_id: str
    key_id: str
    name: str
    created_at: str
    scopes: frozenset[Scope] = frozenset({Scope.ADMIN})
    rooms: tuple[str, ...] | None = None


@dataclass(frozen=True)
class KeyOwner:
    """Whose a presented key is: its tenant and, for keys made since keys are listed, its id; its
    scopes (``admin`` for keys made before scopes) and rooms (None: every room)."""

    tenant_id: str
    key_id: str | None
    scopes: frozenset[Scope] = frozenset({Scope.ADMIN})
    rooms: frozenset[str] | None = None


class ApiKeyTable(TableAccess):
    def put(self, api_key_hash: str, entry: ApiKeyEntry) -> None:
        """Store a new key: LimitExceeded (409) when its tenant holds MAX_API_KEYS_PER_TENANT."""
        tenant = items.tenant_key(entry.tenant_id)
        transaction: list[dict[str, Any]] = [
            {
                "Put": {
                    "TableName": self._table_name,
                    "Item": items.to_attributes(
                        {
                            "PK": api_key_partition_key(api_key_hash),
                            "SK": _HASH_SORT_KEY,
                            "entity": "apiKey",
                            "tenantId": entry.tenant_id,
                            "keyId": entry.key_id,
                            "createdAt": entry.created_at,
                            **_rights(entry),
                        }
                    ),
                    "ConditionExpression": "attribute_not_exists(PK)",
                }
            },
            {
                "Put": {
                    "TableName": self._table_name,
                    "Item": items.to_attributes(
                        {
                            "PK": tenant,
                            "SK": _ENTRY_PREFIX + entry.key_id,
                            "entity": "apiKeyEntry",
                            "keyHash": api_key_hash,
                            "name": entry.name,
                            "createdAt": entry.created_at,
                            **_rights(entry),
                        }
                    ),
                    "ConditionExpression": "attribute_not_exists(PK)",
                }
            },
            {
                "Update": {
                    "TableName": self._table_name,
                    "Key": key(tenant, _COUNT_SORT_KEY),
                    "UpdateExpression": f"ADD {_KEY_COUNT} :one",
                    "ConditionExpression": f"attribute_not_exists({_KEY_COUNT}) OR {_KEY_COUNT} < :most",
                    "ExpressionAttributeValues": {
                        ":one": {"N": "1"},
                        ":most": {"N": str(MAX_API_KEYS_PER_TENANT)},
                    },
                }
            },
        ]
        if self._transact_or_conflict(transaction, "storing the API key") == 2:
            raise LimitExceeded(
                f"a tenant holds at most {MAX_API_KEYS_PER_TENANT} API keys: revoke one first",
                code="too_many_keys",
            )

    def owner(self, api_key_hash: str) -> KeyOwner | None:
        """Whose the key with this hash is (the authorizer's one read), or None."""
        response = self._client.get_item(
            TableName=self._table_name,
            Key=key(api_key_partition_key(api_key_hash), _HASH_SORT_KEY),
            ProjectionExpression="tenantId, keyId, scopes, rooms",
        )
        found = response.get("Item")
        if not found:
            return None
        key_id = found.get("keyId", {}).get("S")
        scopes = found.get("scopes", {}).get("S")
        rooms = found.get("rooms", {}).get("L")
        limited = None if rooms is None else frozenset(str(room.get("S")) for room in rooms)
        return KeyOwner(found["tenantId"]["S"], key_id, parse_scopes(scopes), limited)

    def page(self, tenant_id: str, limit: int, start: Position | None) -> Page[ApiKeyEntry]:
        """A page of the tenant's key entries by key id; a position is the last key id of a page."""
        page = self._query_page(items.tenant_key(tenant_id), limit, start, _ENTRY_PREFIX, _KEY_ID)
        return Page([_entry(tenant_id, item) for item in page.items], page.next_position)

    def delete(self, tenant_id: str, key_id: str) -> None:
        """Revoke a key: NotFound when the tenant has no such key, Conflict ``last_key`` when it is
        the tenant's only one. Both items go with the count's decrement, or nothing does."""
        if not _KEY_ID.match(key_id):
            raise NotFound(f"API key {key_id[:80]} not found")
        tenant = items.tenant_key(tenant_id)
        response = self._client.get_item(
            TableName=self._table_name, Key=key(tenant, _ENTRY_PREFIX + key_id), ConsistentRead=True
        )
        if "Item" not in response:
            raise NotFound(f"API key {key_id} not found")
        api_key_hash = response["Item"]["keyHash"]["S"]
        transaction: list[dict[str, Any]] = [
            {
                "Delete": {
                    "TableName": self._table_name,
                    "Key": key(tenant, _ENTRY_PREFIX + key_id),
                    "ConditionExpression": "keyHash = :hash",
                    "ExpressionAttributeValues": {":hash": {"S": api_key_hash}},
                }
            },
            {
                "Delete": {
                    "TableName": self._table_name,
                    "Key": key(api_key_partition_key(api_key_hash), _HASH_SORT_KEY),
                }
            },
            {
                "Update": {
                    "TableName": self._table_name,
                    "Key": key(tenant, _COUNT_SORT_KEY),
                    "UpdateExpression": f"ADD {_KEY_COUNT} :less",
                    "ConditionExpression": f"{_KEY_COUNT} > :one",
                    "ExpressionAttributeValues": {":less": {"N": "-1"}, ":one": {"N": "1"}},
                }
            },
        ]
        failed = self._transact(transaction)
        if failed == 0:
            raise NotFound(f"API key {key_id} not found")  # revoked meanwhile
        if failed is not None:
            raise Conflict(
                f"API key {key_id} is the tenant's only key: create another before revoking it",
                code="last_key",
            )


def _rights(entry: ApiKeyEntry) -> dict[str, Any]:
    """A key's scopes (``"publish,read"``) and rooms, as both its items store them."""
    rights: dict[str, Any] = {"scopes": ",".join(sorted(entry.scopes))}
    if entry.rooms is not None:
        rights["rooms"] = list(entry.rooms)
    return rights


def _entry(tenant_id: str, item: items.Item) -> ApiKeyEntry:
    rooms = item.get("rooms")
    return ApiKeyEntry(
        tenant_id=tenant_id,
        key_id=str(item["SK"]).removeprefix(_ENTRY_PREFIX),
        name=str(item.get("name", "")),
        created_at=str(item["createdAt"]),
        scopes=parse_scopes(str(item["scopes"]) if "scopes" in item else None),
        rooms=None if rooms is None else tuple(str(room) for room in rooms),
    )


def issue_api_key(
    store: ApiKeyTable,
    tenant_id: str,
    name: str,
    created_at: str,
    api_key: str | None = None,
    scopes: frozenset[Scope] = frozenset({Scope.ADMIN}),
    rooms: tuple[str, ...] | None = None,
) -> tuple[ApiKeyEntry, str]:
    """Store a new key (or the given one) for the tenant: its entry and the key, to show once."""
    key_text = api_key or new_api_key()
    entry = ApiKeyEntry(tenant_id, new_api_key_id(), name, created_at, scopes, rooms)
    store.put(hash_api_key(key_text), entry)
    return entry, key_text


def api_key_partition_key(api_key_hash: str) -> str:
    return f"APIKEY#{api_key_hash}"
