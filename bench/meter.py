"""What the emulator received, as AWS would bill it: a meter inside moto in this process.

Every request to the in-process moto server is counted by service and operation, with the units
AWS bills it in:

- DynamoDB: write request units by the size of the item written (the larger of before and after,
  rounded up to 1 KB; a global secondary index the item is projected into is one more write of the
  same size; a transaction's items cost double), read request units by the size of what was read
  (rounded up to 4 KB per item for GetItem/BatchGetItem, per request for Query; half for eventually
  consistent reads). Sizes come from moto's own items, before and after each request.
- SQS: one request per 64 KB chunk of the larger of its request and response.
- Firehose: bytes ingested, each record rounded up to 5 KB.
- anything else (S3, Secrets Manager, ...): one request each.
"""

from __future__ import annotations

import base64
import io
import json
import math
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

KB = 1024
SQS_CHUNK_BYTES = 64 * KB
FIREHOSE_INCREMENT_BYTES = 5 * KB
_READS = frozenset({"GetItem", "Query", "Scan", "BatchGetItem", "TransactGetItems"})
_WRITES = frozenset({"PutItem", "UpdateItem", "DeleteItem", "BatchWriteItem", "TransactWriteItems"})

StartResponse = Callable[..., Any]


@dataclass
class Meter:
    """Counts since the last ``reset``: requests by (service, operation), and billing units."""

    requests: Counter[tuple[str, str]] = field(default_factory=Counter)
    units: dict[str, float] = field(default_factory=dict)
    units_by_operation: dict[tuple[str, str], float] = field(default_factory=dict)  # (unit, operation)
    # How long the emulator took to answer, by (service, operation): its own work and its waits
    # for the interpreter lock, which the whole process shares.
    seconds: dict[tuple[str, str], float] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def reset(self) -> None:
        with self.lock:
            self.requests.clear()
            self.units.clear()
            self.units_by_operation.clear()
            self.seconds.clear()

    def snapshot(self) -> tuple[Counter[tuple[str, str]], dict[str, float], dict[tuple[str, str], float]]:
        with self.lock:
            return Counter(self.requests), dict(self.units), dict(self.units_by_operation)

    def took(self, service: str, operation: str, seconds: float) -> None:
        with self.lock:
            self.seconds[service, operation] = self.seconds.get((service, operation), 0.0) + seconds

    def count(self, service: str, operation: str, **units: float) -> None:
        with self.lock:
            self.requests[service, operation] += 1
            for name, value in units.items():
                self.units[name] = self.units.get(name, 0.0) + value
                self.units_by_operation[name, operation] = (
                    self.units_by_operation.get((name, operation), 0.0) + value
                )


METER = Meter()
_installed = threading.Lock()
_state = {"done": False}


def install_meter() -> Meter:
    """Meter every request moto's server app in this process handles (idempotent)."""
    from moto.moto_server.werkzeug_app import DomainDispatcherApplication

    with _installed:
        if not _state["done"]:
            original = DomainDispatcherApplication.__call__
            dynamodb_lock = threading.RLock()

            def metered(app: Any, environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
                if str(environ.get("PATH_INFO", "")).startswith("/moto-api"):
                    return original(app, environ, start_response)  # type: ignore[no-any-return]
                length = int(environ.get("CONTENT_LENGTH") or 0)
                body = environ["wsgi.input"].read(length) if length else b""
                environ["wsgi.input"] = io.BytesIO(body)
                service, operation = _classify(environ)
                started = time.perf_counter()
                if service == "dynamodb":
                    with dynamodb_lock:  # sizes before and after belong to this request alone
                        answer = _dynamodb(original, app, environ, start_response, operation, body)
                    METER.took(service, operation, time.perf_counter() - started)
                    return answer
                response = b"".join(original(app, environ, start_response))
                if service == "sqs":
                    chunks = math.ceil(max(len(body), len(response), 1) / SQS_CHUNK_BYTES)
                    METER.count(service, operation, sqs_requests=chunks)
                elif service == "firehose" and operation in {"PutRecordBatch", "PutRecord"}:
                    METER.count(service, operation, firehose_billed_bytes=_firehose_billed_bytes(body))
                else:
                    METER.count(service, operation)
                METER.took(service, operation, time.perf_counter() - started)
                return [response]

            DomainDispatcherApplication.__call__ = metered  # type: ignore[method-assign,assignment]
            _state["done"] = True
    return METER


def _classify(environ: dict[str, Any]) -> tuple[str, str]:
    target = str(environ.get("HTTP_X_AMZ_TARGET", ""))
    if target:
        prefix, _, operation = target.partition(".")
        service = {
            "DynamoDB_20120810": "dynamodb",
            "DynamoDBStreams_20120810": "dynamodbstreams",
            "AmazonSQS": "sqs",
            "Firehose_20150804": "firehose",
            "secretsmanager": "secretsmanager",
        }.get(prefix, prefix.lower())
        return service, operation
    credential = str(environ.get("HTTP_AUTHORIZATION", "")).partition("Credential=")[2]
    scope = credential.split(",")[0].split("/")
    service = scope[3] if len(scope) > 3 else "unknown"
    method = str(environ.get("REQUEST_METHOD", ""))
    if service == "s3":
        has_key = "/" in str(environ.get("PATH_INFO", "")).strip("/")
        operation = {
            ("PUT", True): "PutObject",
            ("GET", True): "GetObject",
            ("HEAD", True): "HeadObject",
            ("DELETE", True): "DeleteObject",
            ("GET", False): "ListObjects",
        }.get((method, has_key), f"{method} bucket")
        return service, operation
    return service, method


def _firehose_billed_bytes(body: bytes) -> int:
    """Firehose bills ingestion per record, each rounded up to a multiple of 5 KB."""
    try:
        records = json.loads(body).get("Records") or [json.loads(body).get("Record", {})]
    except ValueError:
        return 0
    billed = 0
    for record in records:
        size = len(base64.b64decode(record.get("Data", "")))
        billed += math.ceil(max(size, 1) / FIREHOSE_INCREMENT_BYTES) * FIREHOSE_INCREMENT_BYTES
    return billed


# -- DynamoDB ----------------------------------------------------------------------------------


def _dynamodb(
    original: Any,
    app: Any,
    environ: dict[str, Any],
    start_response: StartResponse,
    operation: str,
    body: bytes,
) -> list[bytes]:
    request = json.loads(body or b"{}")
    writes = _written_items(operation, request) if operation in _WRITES else []
    before = [_stored_size(table, key) for table, key, _ in writes]
    response = b"".join(original(app, environ, start_response))
    units: dict[str, float] = {}
    if writes:
        wru = 0.0
        for (table, key, factor), size_before in zip(writes, before, strict=True):
            size = max(size_before, _stored_size(table, key))
            wru += factor * _write_units(size) * (1 + _index_copies(table, key, size_before))
        units["dynamodb_wru"] = wru
    elif operation in _READS:
        units["dynamodb_rru"] = _read_units(operation, request, response)
    METER.count("dynamodb", operation, **units)
    return [response]


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


def _stored_size(table_name: str, key: dict[str, Any]) -> int:
    item = _stored(table_name, key)
    return int(item.size()) if item is not None else 0


def _index_copies(table_name: str, key: dict[str, Any], size_before: int) -> int:
    """Global secondary indexes the item is in (before or after the write): each is written too.
    Each copy is counted at the whole item's size: an upper bound, since the one index (ByRoom)
    projects only the keys, eventType and destinations (the same 1 WRU for items up to 1 KB)."""
    table = _table(table_name)
    item = _stored(table_name, key)
    attributes = set(item.attrs) if item is not None else set()
    copies = 0
    for index in getattr(table, "global_indexes", []) or []:
        hash_attribute = next((k["AttributeName"] for k in index.schema if k["KeyType"] == "HASH"), None)
        if hash_attribute in attributes or (size_before and hash_attribute in key):
            copies += 1
    return copies


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
