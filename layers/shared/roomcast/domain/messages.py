"""Messages and their per-destination delivery state (the seeds' "published_messages")."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from roomcast.domain.clock import now_iso
from roomcast.domain.models import SubscriptionType
from roomcast.domain.payloads import JsonValue


class DeliveryStatus(StrEnum):
    PENDING = "pending"  # on its way, no attempt has failed yet
    RETRYING = "retrying"  # an attempt failed; another one is scheduled
    DELIVERED = "delivered"
    DEAD = "dead"
    EXPIRED = "expired"


TERMINAL_STATUSES = frozenset({DeliveryStatus.DELIVERED, DeliveryStatus.DEAD, DeliveryStatus.EXPIRED})


@dataclass(frozen=True)
class Message:
    id: str
    tenant_id: str
    room_id: str
    event_type: str
    event_version: str
    correlation_id: str
    payload: JsonValue
    published_at: str
    published_at_ms: int
    expires_at_ms: int | None
    destinations: tuple[str, ...]


@dataclass(frozen=True)
class Delivery:
    message_id: str
    tenant_id: str
    subscription_id: str
    subscription_type: SubscriptionType
    status: DeliveryStatus
    attempts: int  # attempts made so far (a delivered first try counts 1)
    last_error: str | None
    next_attempt_at: str | None
    updated_at: str


@dataclass(frozen=True)
class TrackedMessage:
    """A message with the current delivery record of each destination."""

    message: Message
    deliveries: tuple[Delivery, ...]


def delivery_record(
    *,
    message_id: str,
    tenant_id: str,
    subscription_id: str,
    subscription_type: SubscriptionType,
    status: DeliveryStatus,
    attempts: int,
    error: str | None = None,
    next_attempt_at: str | None = None,
    updated_at: str | None = None,
) -> Delivery:
    """A destination's delivery record as of ``updated_at`` (default: now): the one way to make one."""
    return Delivery(
        message_id=message_id,
        tenant_id=tenant_id,
        subscription_id=subscription_id,
        subscription_type=subscription_type,
        status=status,
        attempts=attempts,
        last_error=error,
        next_attempt_at=next_attempt_at,
        updated_at=updated_at or now_iso(),
    )
