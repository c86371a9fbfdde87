"""The AWS model of a delivery's latency: each wait on the path with its typical latency on AWS, and
the path's p50/p99 from them. Pure.

A wait's latency is taken as lognormal, fitted to its p50 and p99; the path's percentiles come from
summing independent draws (a fixed seed: the same figures every run). A window (an event source's
batching window at low traffic) is a constant: at low traffic it is waited out in full.

The figures are typical same-region latencies. AWS publishes few of them; each says where it comes
from, and an assumption says so. A webhook endpoint far from the region adds its round trip.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass

Z_99 = 2.3263  # the standard normal's 99th percentile
DRAWS = 20_000


@dataclass(frozen=True)
class Typical:
    """A kind of wait on AWS: its p50 and p99 in ms, and where they come from."""

    name: str
    p50_ms: float
    p99_ms: float
    source: str


DYNAMODB_ITEM = Typical(
    "DynamoDB single-item read or write",
    5,
    20,
    "'single-digit millisecond' (DynamoDB Developer Guide, What is DynamoDB); p99 assumed 4x p50",
)
DYNAMODB_BATCH = Typical(
    "DynamoDB batch, transaction or query",
    10,
    40,
    "assumed 2x a single item (a batch's items are written side by side; a transaction has two phases)",
)
SQS_SEND = Typical(
    "SQS send (one message or a batch of 10)",
    15,
    60,
    "SQS documentation: typical SendMessage/ReceiveMessage latencies 'in the tens or low hundreds of ms'",
)
SQS_RECEIVE = Typical(
    "SQS receive (a pull's long poll answering a visible message)", 15, 60, "as an SQS send"
)
EVENT_SOURCE_HANDOVER = Typical(
    "Lambda's SQS event source: a sent message to the function's invocation (window 0)",
    20,
    100,
    "assumed: its pollers long-poll (answered once the message is stored), then invoke; no AWS figure",
)
API_GATEWAY = Typical(
    "API Gateway HTTP API and a warm Lambda invoke (authorizer answer cached)",
    10,
    40,
    "assumed: HTTP API's Latency minus IntegrationLatency is typically under 10 ms",
)
WEBHOOK_POST = Typical(
    "the webhook's POST to an endpoint answering at once, in the region, connection kept",
    5,
    30,
    "assumed: one round trip within a region; a TLS handshake adds two more on a new connection",
)
BY_SERVICE = {"dynamodb": DYNAMODB_ITEM, "sqs": SQS_SEND}
DYNAMODB_MANY = {"BatchWriteItem", "BatchGetItem", "TransactWriteItems", "TransactGetItems", "Query", "Scan"}
SQS_OPERATIONS = {"SendMessage", "SendMessageBatch", "ReceiveMessage", "DeleteMessage", "DeleteMessageBatch"}
FIREHOSE_OPERATIONS = {"PutRecord", "PutRecordBatch"}


def typical_of(operations: Sequence[str]) -> Typical:
    """The wait's kind from the operations made in it (calls in flight together: the slowest kind)."""
    kinds = [_typical_of_one(operation) for operation in operations]
    return max(kinds, key=lambda kind: kind.p50_ms)


def _typical_of_one(operation: str) -> Typical:
    if operation in SQS_OPERATIONS:
        return SQS_RECEIVE if operation == "ReceiveMessage" else SQS_SEND
    if operation in DYNAMODB_MANY:
        return DYNAMODB_BATCH
    if operation in FIREHOSE_OPERATIONS:
        return SQS_SEND  # assumed as an SQS send: one HTTPS request to a regional service
    return DYNAMODB_ITEM


@dataclass(frozen=True)
class Step:
    """One wait on the path: what it is, and its kind (None: a fixed window of ``window_ms``)."""

    what: str
    typical: Typical | None
    window_ms: float = 0.0


def percentiles(steps: Sequence[Step], seed: int = 52) -> tuple[float, float]:
    """The path's p50 and p99 in ms: the sum of each wait drawn from its lognormal, plus windows."""
    rng = random.Random(seed)
    fixed = sum(step.window_ms for step in steps if step.typical is None)
    kinds = [step.typical for step in steps if step.typical is not None]
    totals = sorted(fixed + sum(_draw(rng, kind) for kind in kinds) for _ in range(DRAWS))
    return totals[DRAWS // 2], totals[int(DRAWS * 0.99)]


def _draw(rng: random.Random, kind: Typical) -> float:
    sigma = math.log(kind.p99_ms / kind.p50_ms) / Z_99
    return rng.lognormvariate(math.log(kind.p50_ms), sigma)
