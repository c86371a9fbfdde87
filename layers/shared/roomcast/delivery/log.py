"""The delivery log: one record per publish, attempt, hop and outcome (schema: docs/delivery-log.md).

A function buffers its records and writes them as ONE gzip NDJSON object per invocation under
``raw/dt=YYYY-MM-DD/hour=HH/``. Writing never delays or endangers a delivery: it happens after
the work, and if S3 refuses, the records go to the function's log instead (CloudWatch keeps
them) and the ``DeliveryLogWriteFailed`` metric counts the loss from the bucket.
"""

from __future__ import annotations

import gzip
import json
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Final, Protocol

from roomcast.dal.aws import s3_client
from roomcast.domain.clock import iso_timestamp, utc_now
from roomcast.domain.envelope import Envelope
from roomcast.domain.fields import camel_fields
from roomcast.domain.receipts import Receipt
from roomcast.observability import logger, metrics

SCHEMA_VERSION: Final = 1
type Detail = int | str | None  # attempt, http_status, latency_ms, error, next_delay_ms
RAW_PREFIX: Final = "raw"
# What a record takes from the envelope or receipt it is about.
_FROM_SUBJECT: Final = ("message_id", "correlation_id", "room_id", "subscription_id")


@dataclass(frozen=True)
class LogRecord:
    """One delivery-log line. ``event`` is one of EVENTS."""

    event: str
    message_id: str
    correlation_id: str
    tenant_id: str
    room_id: str
    subscription_id: str | None = None
    subscription_type: str | None = None
    attempt: int | None = None
    http_status: int | None = None
    latency_ms: int | None = None
    error: str | None = None
    next_delay_ms: int | None = None
    published_at: str | None = None
    timestamp: str = field(default_factory=lambda: iso_timestamp(utc_now()))
    record_id: str = field(default_factory=lambda: uuid.uuid4().hex)

    @classmethod
    def about(
        cls,
        subject: Envelope | Receipt,
        event: str,
        subscription_type: str,
        tenant_id: str | None = None,
        /,
        **details: Detail,
    ) -> LogRecord:
        """A record of ``event`` for the message and destination of an envelope or a PULL receipt
        (a receipt does not carry its tenant: pass ``tenant_id``); ``details`` are the other
        fields (attempt, http_status, latency_ms, error, next_delay_ms)."""
        tenant = subject.tenant_id if isinstance(subject, Envelope) else tenant_id
        if tenant is None:
            raise ValueError("a receipt's log record needs the tenant_id")
        fields: dict[str, Any] = {name: getattr(subject, name) for name in _FROM_SUBJECT} | details
        return cls(
            event=event,
            tenant_id=tenant,
            subscription_type=subscription_type,
            published_at=subject.published_at or None,
            **fields,
        )

    def to_json(self) -> str:
        return json.dumps({"schemaVersion": SCHEMA_VERSION, **camel_fields(self)}, separators=(",", ":"))


EVENTS: Final = (
    "published",  # a message was stored (one per destination, subscriptionId set; or one with none)
    "attempt",  # a webhook POST or a PULL hand-out was made (attempt = its number)
    "hop",  # an envelope was re-sent to wait longer than SQS can hold (not an attempt)
    "delivered",  # 2xx, or a PULL ack
    "retry_scheduled",  # an attempt failed; next one after next_delay_ms
    "dead",  # attempts exhausted or a permanent failure
    "expired",  # the room's expiry came first
    "failover",  # handed to the subscription's failover (subscription_id = the one that failed)
    "replayed",  # a dead letter sent again from attempt 0
    "held",  # PUSH: waited for flow control or a paused subscription (not an attempt)
    "extended",  # PULL: a consumer extended a pulled message's ack wait
    "cleared",  # "Clear All" ended a pending or retrying delivery (never sent afterwards)
    "retry_now",  # a retrying delivery was made due now (POST .../deliveries/retry)
)


def object_key(moment: datetime, function_name: str, invocation_id: str) -> str:
    moment = moment.astimezone(UTC)
    return (
        f"{RAW_PREFIX}/dt={moment:%Y-%m-%d}/hour={moment:%H}/"
        f"{moment:%Y%m%dT%H%M%S}-{function_name}-{invocation_id}.ndjson.gz"
    )


class LogSink(Protocol):
    """Where services put delivery-log records (a DeliveryLog, or a list in tests)."""

    def add(self, record: LogRecord) -> None: ...


class DeliveryLog:
    """Buffers one invocation's records; ``flush`` writes them as one object (or logs them)."""

    def __init__(self, bucket: str, function_name: str) -> None:
        self._bucket = bucket
        self._function_name = function_name
        self._records: list[LogRecord] = []

    def add(self, record: LogRecord) -> None:
        self._records.append(record)

    @property
    def pending(self) -> list[LogRecord]:
        return list(self._records)

    def flush(self, invocation_id: str | None = None) -> str | None:
        """Write the buffer; returns the object key, or None when nothing was written to S3."""
        records, self._records = self._records, []
        if not records:
            return None
        body = gzip.compress(("\n".join(r.to_json() for r in records) + "\n").encode("utf-8"))
        key = object_key(utc_now(), self._function_name, invocation_id or uuid.uuid4().hex)
        if not self._bucket:
            self._fall_back(records, "no LOG_BUCKET configured")
            return None
        try:
            s3_client().put_object(
                Bucket=self._bucket,
                Key=key,
                Body=body,
                ContentType="application/x-ndjson",
                ContentEncoding="gzip",
            )
        except Exception as error:  # never let the log endanger a delivery
            self._fall_back(records, f"{type(error).__name__}: {error}")
            return None
        return key

    @staticmethod
    def _fall_back(records: list[LogRecord], reason: str) -> None:
        from aws_lambda_powertools.metrics import MetricUnit

        metrics.add_metric(name="DeliveryLogWriteFailed", unit=MetricUnit.Count, value=len(records))
        logger.error("delivery log not written to S3; records follow in this log", extra={"reason": reason})
        for record in records:
            logger.info("delivery-log", extra={"deliveryLog": json.loads(record.to_json())})
