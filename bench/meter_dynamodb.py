"""The meter's DynamoDB side (bench/meter.py): write request units by the size of each item
written, before and after, with its index copies, and by partition; read request units by what
was read. Sizes come from moto's own items in this process."""

from __future__ import annotations

import json
import math
import re
from typing import Any

from bench.meter import KB, METER, StartResponse
from roomcast_dev.moto_partiql import parameterised_insert

_READS = frozenset({"GetItem", "Query", "Scan", "BatchGetItem", "TransactGetItems"})
_WRITES = frozenset(
    {"PutItem", "UpdateItem", "DeleteItem", "BatchWriteItem", "TransactWriteItems", "BatchExecuteStatement"}
)


def dynamodb_request(
    original: Any,
    app: Any,
    environ: dict[str, Any],
    start_response: StartResponse,
    operation: str,
    body: bytes,
) -> list[bytes]:
    request = json.loads(body or b"{}")
    writes = _written_items(operation, request) if operation in _WRITES else []
    before = [_stored(table, key) for table, key, _ in writes]
    response = b"".join(original(app, environ, start_response))
    units: dict[str, float] = {}
    if writes:
        wru = 0.0
        for (table, key, factor), item_before in zip(writes, before, strict=True):
            size_before = int(item_before.size()) if item_before is not None else 0
            item_after = _stored(table, key)
            size = max(size_before, int(item_after.size()) if item_after is not None else 0)
            indexes = _indexes_written(table, key, size_before)
            item_units = factor * _write_units(size)
            wru += item_units * (1 + len(indexes))
            kind = item_kind(item_after or item_before, first_write=item_before is None)
            METER.wrote_kind(kind, item_units, size)
            for index in indexes:
                METER.wrote_kind(f"{kind} -> {index} index", item_units, size)
            for partition, written_bytes in _partitions(table, key, size):
                METER.wrote(partition_class(partition), factor * _write_units(written_bytes))
        units["dynamodb_wru"] = wru
    elif operation in _READS:
        units["dynamodb_rru"] = _read_units(operation, request, response)
        METER.read(partition_class(_partition_read(operation, request)), units["dynamodb_rru"])
    METER.count("dynamodb", operation, **units)
    return [response]


def _partition_read(operation: str, request: dict[str, Any]) -> str:
    """The partition a GetItem or Query reads ("(several)" for the others)."""
    if operation == "GetItem":
        return str(request.get("Key", {}).get("PK", {}).get("S", ""))
    if operation == "Query":
        return str(request.get("ExpressionAttributeValues", {}).get(":pk", {}).get("S", ""))
    return "(several)"


def _written_items(operation: str, request: dict[str, Any]) -> list[tuple[str, dict[str, Any], int]]:
    """(table, key or item, cost factor) of every item the request writes."""
    if operation == "PutItem":
        return [(request["TableName"], request.get("Item", {}), 1)]
    if operation in {"UpdateItem", "DeleteItem"}:
        return [(request["TableName"], request.get("Key", {}), 1)]
    if operation == "BatchWriteItem":
        return [
            (
                table,
                entry.get("PutRequest", {}).get("Item") or entry.get("DeleteRequest", {}).get("Key", {}),
                1,
            )
            for table, entries in request.get("RequestItems", {}).items()
            for entry in entries
        ]
    if operation == "BatchExecuteStatement":  # the PartiQL INSERTs roomcast sends: each a put
        return [
            (insert[0], dict(zip(insert[1], statement.get("Parameters", []), strict=False)), 1)
            for statement in request.get("Statements", [])
            if (insert := parameterised_insert(statement.get("Statement", ""))) is not None
        ]
    written = []
    for entry in request.get("TransactItems", []):  # TransactWriteItems: every item costs double
        for kind in ("Put", "Update", "Delete", "ConditionCheck"):
            if kind in entry:
                part = entry[kind]
                written.append((part["TableName"], part.get("Item") or part.get("Key", {}), 2))
    return written


def _table(name: str) -> Any:
    from moto.dynamodb.models import dynamodb_backends

    from roomcast_dev.local_aws import LOCAL_ACCOUNT_ID, LOCAL_REGION

    try:
        return dynamodb_backends[LOCAL_ACCOUNT_ID][LOCAL_REGION].get_table(name)
    except Exception:
        return None


def _stored(table_name: str, key: dict[str, Any]) -> Any:
    from moto.dynamodb.models.dynamo_type import DynamoType

    table = _table(table_name)
    if table is None or table.hash_key_attr not in key:
        return None
    hash_key = DynamoType(key[table.hash_key_attr])
    range_key = DynamoType(key[table.range_key_attr]) if table.range_key_attr in key else None
    try:
        return table.get_item(hash_key, range_key)
    except Exception:
        return None


def _indexes_written(table_name: str, key: dict[str, Any], size_before: int) -> list[str]:
    """Global secondary indexes the item is in (before or after the write): each is written too.
    Each copy is counted at the whole item's size: an upper bound, since the indexes project only
    their keys and a few attributes (the same 1 WRU for items up to 1 KB)."""
    table = _table(table_name)
    item = _stored(table_name, key)
    attributes = set(item.attrs) if item is not None else set()
    written = []
    for index in getattr(table, "global_indexes", []) or []:
        hash_attribute = next((k["AttributeName"] for k in index.schema if k["KeyType"] == "HASH"), None)
        if hash_attribute in attributes or (size_before and hash_attribute in key):
            written.append(str(index.name))
    return written


def item_kind(item: Any, *, first_write: bool) -> str:
    """What kind of item a write wrote, for the report's write units by kind: its ``entity``
    (a delivery record's first write apart from its later ones), else its sort key's kind."""
    if item is None:
        return "(nothing stored)"
    attributes = item.attrs
    entity = attributes["entity"].value if "entity" in attributes else None
    if entity == "delivery":
        status = attributes["status"].value if "status" in attributes else "?"
        return f"delivery record: {status} ({'first write' if first_write else 'over an earlier one'})"
    if entity is not None:
        return str(entity)
    sort_key = attributes["SK"].value if "SK" in attributes else ""
    return partition_class(str(sort_key).split("#", 1)[0] or "(no sort key)")


_ID_KINDS = (
    (re.compile(r"room_[0-9a-f]{32}"), "{room}"),
    (re.compile(r"sub_[0-9a-f]{32}"), "{subscription}"),
    (re.compile(r"msg_[0-9a-f]{32}"), "{message}"),
    (re.compile(r"key_[0-9a-f]{32}"), "{key}"),
    (re.compile(r"^APIKEY#.*"), "APIKEY#{hash}"),
    (re.compile(r"(?<![^:])TENANT#[^#]+"), "TENANT#{tenant}"),
    (re.compile(r"#SENT#.*"), "#SENT#{request}"),
    (re.compile(r"#MSGS#[0-9]+$"), "#MSGS#{shard}"),
)


def partition_class(partition: str) -> str:
    """A partition key with its ids replaced by their kind: one class, one kind of hot key."""
    for pattern, kind in _ID_KINDS:
        partition = pattern.sub(kind, partition)
    return partition


# What the ByRoom index holds of an item (template.yaml: its keys and eventType).
_INDEX_ATTRIBUTES = ("PK", "SK", "GSI1PK", "GSI1SK", "eventType")


def _partitions(table_name: str, key: dict[str, Any], size: int) -> list[tuple[str, int]]:
    """The partitions a write lands on, with the bytes written there: the item's own (``size``)
    and, for an item in the index, the index's (its projection)."""
    found = [(key["PK"]["S"], size)] if isinstance(key.get("PK"), dict) and "S" in key["PK"] else []
    item = _stored(table_name, key)
    indexed = item.attrs.get("GSI1PK") if item is not None else None
    if item is not None and indexed is not None:
        from moto.dynamodb.models.utilities import bytesize

        projected = sum(
            bytesize(name) + item.attrs[name].size() for name in _INDEX_ATTRIBUTES if name in item.attrs
        )
        found.append((f"ByRoom:{indexed.value}", projected))
    return found


def _write_units(size_bytes: int) -> int:
    return max(1, math.ceil(size_bytes / KB))


def _item_size(item: dict[str, Any]) -> int:
    from moto.dynamodb.models.dynamo_type import DynamoType
    from moto.dynamodb.models.utilities import bytesize

    return sum(bytesize(name) + DynamoType(value).size() for name, value in item.items())


def _read_units(operation: str, request: dict[str, Any], response_body: bytes) -> float:
    try:
        response = json.loads(response_body or b"{}")
    except ValueError:
        return 0.0
    consistent = 1.0 if request.get("ConsistentRead") else 0.5
    if operation == "GetItem":
        size = _item_size(response.get("Item", {}))
        return consistent * max(1, math.ceil(size / (4 * KB)))
    if operation in {"Query", "Scan"}:
        if request.get("IndexName"):
            consistent = 0.5  # a global secondary index is read eventually consistent
        size = sum(_item_size(item) for item in response.get("Items", []))
        return consistent * max(1, math.ceil(size / (4 * KB)))
    if operation == "BatchGetItem":
        units = 0.0
        for table, items in response.get("Responses", {}).items():
            table_consistent = 1.0 if request["RequestItems"].get(table, {}).get("ConsistentRead") else 0.5
            units += sum(table_consistent * max(1, math.ceil(_item_size(item) / (4 * KB))) for item in items)
        return units
    # TransactGetItems: every item costs double a strongly consistent read
    return sum(
        2.0 * max(1, math.ceil(_item_size(r.get("Item", {})) / (4 * KB)))
        for r in response.get("Responses", [])
    )
