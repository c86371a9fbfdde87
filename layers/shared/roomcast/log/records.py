"""The delivery log's records: one per publish, attempt, hop and outcome (schema v1:
docs/delivery-log.md; the Glue jobs read them, glue_jobs/roomcast_glue/schema.py). Written to
Firehose by roomcast.log.delivery_log."""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Final

from roomcast.catalog import SubscriptionType
from roomcast.messages import Envelope
from roomcast.platform import camel_fields, iso_timestamp, utc_now
from roomcast.pull import Receipt

SCHEMA_VERSION: Final = 1
type Detail = int | str | None  # attempt, http_status, latency_ms, error, next_delay_ms
# What a record takes from the envelope or receipt it is about.
_FROM_SUBJECT: Final = ("message_id", "correlation_id", "room_id", "subscription_id")


class LogEvent(StrEnum):
    PUBLISHED = (
        "published"  # a message was stored (one per destination, subscriptionId set; or one with none)
    )
    ATTEMPT = "attempt"  # a webhook POST or a PULL hand-out was made (attempt = its number)
    HOP = "hop"  # an envelope was re-sent to wait longer than SQS can hold (not an attempt)
    DELIVERED = "delivered"  # 2xx, or a PULL ack
    RETRY_SCHEDULED = "retry_scheduled"  # an attempt failed; next one after next_delay_ms
    DEAD = "dead"  # attempts exhausted or a permanent failure
    EXPIRED = "expired"  # the room's expiry came first
    FAILOVER = "failover"  # handed to the subscription's failover (subscription_id = the one that failed)
    REPLAYED = "replayed"  # a dead letter sent again from attempt 0
    HELD = "held"  # PUSH: waited for flow control or a paused subscription (not an attempt)
    SLOW_LANE = "slow_lane"  # PUSH: its endpoint answers slowly; moved to the slow lane (not an attempt)
    EXTENDED = "extended"  # PULL: a consumer extended a pulled message's ack wait
    CLEARED = "cleared"  # ended by Clear All or a deletion (never sent afterwards)
    RETRY_NOW = "retry_now"  # a retrying delivery was made due now (POST .../deliveries/retry)
    ABORTED = "aborted"  # PUSH: the receiver asked for no more attempts (webhook-delivery: abort)
    FILTERED = "filtered"  # PUSH: its subscription's transformation cancelled it (never sent)


@dataclass(frozen=True)
class LogRecord:
    """One delivery-log line."""

    event: LogEvent
    message_id: str
    correlation_id: str
    tenant_id: str
    room_id: str
    subscription_id: str | None = None
    subscription_type: SubscriptionType | None = None
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
        event: LogEvent,
        subscription_type: SubscriptionType,
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
