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
    # Write units by partition, the table's and its index's, ids replaced by their kind
    # (``TENANT#{tenant}#ROOM#{room}#MSGS``): what lands on one key (bench/capacity.py).
    partition_wru: dict[str, float] = field(default_factory=dict)
    # By kind of item written (``message``, ``message -> ByRoom index``, ``delivery record: delivered
    # (first write)``...; bench/meter_dynamodb.py ``item_kind``): writes, write units, and the bytes
    # of the larger of each item's before and after (what the units were billed on).
    kind_writes: Counter[str] = field(default_factory=Counter)
    kind_wru: dict[str, float] = field(default_factory=dict)
    kind_bytes: Counter[str] = field(default_factory=Counter)
    # Read units by the partition read (ids replaced by their kind): whose reads they were.
    partition_rru: dict[str, float] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def reset(self) -> None:
        with self.lock:
            self.requests.clear()
            self.units.clear()
            self.units_by_operation.clear()
            self.seconds.clear()
            self.partition_wru.clear()
            self.kind_writes.clear()
            self.kind_wru.clear()
            self.kind_bytes.clear()
            self.partition_rru.clear()

    def snapshot(self) -> tuple[Counter[tuple[str, str]], dict[str, float], dict[tuple[str, str], float]]:
        with self.lock:
            return Counter(self.requests), dict(self.units), dict(self.units_by_operation)

    def wrote(self, partition: str, wru: float) -> None:
        with self.lock:
            self.partition_wru[partition] = self.partition_wru.get(partition, 0.0) + wru

    def read(self, partition: str, rru: float) -> None:
        with self.lock:
            self.partition_rru[partition] = self.partition_rru.get(partition, 0.0) + rru

    def wrote_kind(self, kind: str, wru: float, size_bytes: int) -> None:
        with self.lock:
            self.kind_writes[kind] += 1
            self.kind_wru[kind] = self.kind_wru.get(kind, 0.0) + wru
            self.kind_bytes[kind] += size_bytes

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

    from bench.meter_dynamodb import dynamodb_request

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
                        answer = dynamodb_request(original, app, environ, start_response, operation, body)
                    METER.took(service, operation, time.perf_counter() - started)
                    return answer
                response = b"".join(original(app, environ, start_response))
                if service == "sqs":
                    chunks = math.ceil(max(len(body), len(response), 1) / SQS_CHUNK_BYTES)
                    METER.count(service, operation, sqs_requests=chunks)
                elif service == "firehose" and operation in {"PutRecordBatch", "PutRecord"}:
                    billed, raw = _firehose_bytes(body)
                    METER.count(service, operation, firehose_billed_bytes=billed, firehose_bytes=raw)
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


def _firehose_bytes(body: bytes) -> tuple[int, int]:
    """(billed, sent): Firehose bills ingestion per record, each rounded up to a multiple of 5 KB;
    its throughput quota counts the bytes sent."""
    try:
        records = json.loads(body).get("Records") or [json.loads(body).get("Record", {})]
    except ValueError:
        return 0, 0
    billed = sent = 0
    for record in records:
        size = len(base64.b64decode(record.get("Data", "")))
        billed += math.ceil(max(size, 1) / FIREHOSE_INCREMENT_BYTES) * FIREHOSE_INCREMENT_BYTES
        sent += size
    return billed, sent
