"""The metrics' words: what is counted, where (a subscription, its room, its tenant), in which time
buckets, for how long (docs/metrics.md, docs/decisions/0046-metrics-from-the-table-stream.md)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Final

from roomcast.platform import DAY_MS, HOUR_MS, MINUTE_MS


class Count(StrEnum):
    """What a bucket counts, each where it happened (its attribute name is the value)."""

    ATTEMPTS = "attempts"  # webhook requests made, PULL hand-outs
    FAILED_ATTEMPTS = "failedAttempts"  # a webhook that did not answer 2xx; a PULL nack or ack wait expired
    DELIVERED = "delivered"
    DEAD = "dead"
    EXPIRED = "expired"
    ABORTED = "aborted"
    CLEARED = "cleared"
    CANCELLED = "cancelled"
    FAILED_OVER = "failedOver"  # dead here and handed to the subscription's failover
    # published to the room, not routed here by the filter policy, or cancelled by its transformation
    FILTERED_OUT = "filteredOut"


class Sample(StrEnum):
    """What a bucket keeps the distribution of (a sketch: roomcast.metrics.sketch); the value is
    the prefix of its bins' attribute names."""

    ATTEMPT_LATENCY_MS = "L"  # how long a webhook took to answer
    DELIVERY_DELAY_MS = "D"  # first due (published, or its deliverAt) -> delivered


class Resolution(StrEnum):
    MINUTE = "1m"
    HOUR = "1h"

    @property
    def ms(self) -> int:
        return MINUTE_MS if self is Resolution.MINUTE else HOUR_MS

    @property
    def kept_ms(self) -> int:
        """How long its buckets are kept (DynamoDB TTL from the bucket's start)."""
        return 2 * DAY_MS if self is Resolution.MINUTE else 35 * DAY_MS

    @property
    def max_points(self) -> int:
        """The most points one answer holds: a day of minutes, the 35 days of hours."""
        return 1440 if self is Resolution.MINUTE else 840

    def start_of(self, at_ms: int) -> int:
        return at_ms - at_ms % self.ms


RESOLUTIONS: Final = tuple(Resolution)
# An open-deliveries item's total, besides its minutes (``m00`` .. ``m59``: roomcast.metrics.tally).
OPEN_TOTAL: Final = "open"
MINUTE_PREFIX: Final = "m"


@dataclass(frozen=True)
class Place:
    """Where a delivery belongs: its tenant, room (None on records written before the metrics
    knew it: counted for the subscription and the tenant only) and subscription."""

    tenant_id: str
    room_id: str | None
    subscription_id: str


class ScopeKind(StrEnum):
    SUBSCRIPTION = "SUB"
    ROOM = "ROOM"
    TENANT = "TENANT"


@dataclass(frozen=True)
class Scope:
    """What a series is of: one subscription, a room (its subscriptions), or a whole tenant."""

    tenant_id: str
    kind: ScopeKind
    id: str | None = None  # the subscription's or the room's; None for the tenant

    @classmethod
    def subscription(cls, tenant_id: str, subscription_id: str) -> Scope:
        return cls(tenant_id, ScopeKind.SUBSCRIPTION, subscription_id)

    @classmethod
    def room(cls, tenant_id: str, room_id: str) -> Scope:
        return cls(tenant_id, ScopeKind.ROOM, room_id)

    @classmethod
    def tenant(cls, tenant_id: str) -> Scope:
        return cls(tenant_id, ScopeKind.TENANT)


def scopes_of(place: Place) -> tuple[Scope, ...]:
    """Every series a delivery's change counts in: its subscription's, its room's, its tenant's."""
    room = () if place.room_id is None else (Scope.room(place.tenant_id, place.room_id),)
    return (Scope.subscription(place.tenant_id, place.subscription_id), *room, Scope.tenant(place.tenant_id))


@dataclass(frozen=True)
class Percentiles:
    p50: float
    p95: float
    p99: float


@dataclass(frozen=True)
class Point:
    """One bucket of a series: its counts, its percentiles (None without samples), and the
    backlog as of its end: open deliveries, and how long the oldest had waited (None: none open)."""

    at_ms: int
    counts: dict[Count, int]
    percentiles: dict[Sample, Percentiles | None]
    backlog: int
    oldest_open_age_ms: int | None
