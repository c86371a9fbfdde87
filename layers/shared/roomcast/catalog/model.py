"""Domain models: rooms, subscriptions and their delivery policy. No AWS, no HTTP."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import StrEnum

from roomcast.destinations import Destination
from roomcast.event_types import UndeclaredEventTypes
from roomcast.filters import FilterPolicy
from roomcast.platform import DEFAULT_PUSH_TIMEOUT_MS
from roomcast.transformations import Transformation


class SubscriptionType(StrEnum):
    PUSH = "PUSH"
    PULL = "PULL"


class OnDeadKey(StrEnum):
    """What an ordered subscription's key does when its message ends dead (``onDeadKey``)."""

    PAUSE = "pause"  # its later messages wait until an operator resumes it
    SKIP = "skip"  # the next message goes at once


class WebhookFormat(StrEnum):
    """How a webhook carries its message (``format``; docs/cloudevents.md)."""

    STANDARD = "standard"  # roomcast's JSON body (docs/delivery-semantics.md)
    CLOUDEVENTS = "cloudevents"  # a CloudEvents 1.0 event over HTTP


class CloudEventsMode(StrEnum):
    """The CloudEvents HTTP binding's two content modes (``cloudEventsMode``)."""

    STRUCTURED = "structured"  # the whole event as the JSON body (application/cloudevents+json)
    BINARY = "binary"  # the payload as the body, the event's attributes as ce-* headers


class SubscriptionStatus(StrEnum):
    ACTIVE = "active"
    # Messages are still routed to it, but its deliveries wait (neither attempts nor dead) until
    # it is active again or they expire.
    PAUSED = "paused"
    # By an operator, on a 410 Gone, or after failing for disableAfterFailingMs: nothing is routed
    # to it until re-activated, and queued deliveries end dead.
    DISABLED = "disabled"

    @property
    def receives(self) -> bool:
        """Whether new messages are routed to a subscription in this status."""
        return self is not SubscriptionStatus.DISABLED


@dataclass(frozen=True)
class EventTypeFilter:
    """An event type and the versions of it that are accepted; no versions = every version."""

    name: str
    versions: tuple[str, ...] = ()

    def accepts(self, event_type: str, event_version: str) -> bool:
        return self.name == event_type and (not self.versions or event_version in self.versions)


def accepts_event(filters: tuple[EventTypeFilter, ...], event_type: str, event_version: str) -> bool:
    """An empty filter list accepts everything."""
    return not filters or any(f.accepts(event_type, event_version) for f in filters)


@dataclass(frozen=True)
class Room:
    id: str
    tenant_id: str
    name: str
    message_expiration_ms: int | None
    delivery_delay_ms: int
    delivery_delay_multiplier: float
    delivery_attempts: int
    event_types: tuple[EventTypeFilter, ...]
    created_at: str
    updated_at: str
    # Another room of the tenant where roomcast publishes its own events about this room's deliveries.
    operations_room_id: str | None = None
    # What a publish of an event type not in the tenant's catalog gets (roomcast.event_types.model).
    undeclared_event_types: UndeclaredEventTypes = UndeclaredEventTypes.ALLOW


@dataclass(frozen=True)
class DeliveryOverrides:
    """What a subscription may change of its room's policy (never the expiration). None = room's value."""

    delivery_delay_ms: int | None = None
    delivery_delay_multiplier: float | None = None
    delivery_attempts: int | None = None
    max_delay_ms: int | None = None
    jitter: float | None = None
    retry_schedule_ms: tuple[int, ...] | None = None


@dataclass(frozen=True)
class SigningSecret:
    """A webhook signing secret; a rotated-out secret keeps signing until ``expires_at_ms``."""

    secret: str
    expires_at_ms: int | None = None

    def active(self, now_ms: int) -> bool:
        return self.expires_at_ms is None or now_ms < self.expires_at_ms


@dataclass(frozen=True)
class Subscription:
    id: str
    room_id: str
    tenant_id: str
    type: SubscriptionType
    status: SubscriptionStatus
    event_types: tuple[EventTypeFilter, ...]
    overrides: DeliveryOverrides
    failover_subscription_id: str | None
    created_at: str
    updated_at: str
    # Which payloads it receives, beyond its event types (None: every payload).
    filter_policy: FilterPolicy | None = None
    # PUSH only: a webhook's URL, or an AWS queue, bus or topic (roomcast.destinations)
    push_url: str | None = None
    destination: Destination | None = None
    timeout_ms: int | None = None
    signing_secrets: tuple[SigningSecret, ...] = field(default=())
    max_concurrency: int | None = None  # webhook requests in flight at once, across invocations
    rate_limit_per_second: float | None = None  # webhook requests started per second (smoothed)
    disable_after_failing_ms: int | None = None  # auto-disable after failing this long (None: default)
    disabled_reason: str | None = None  # why it is disabled (set with the status, cleared on resume)
    disabled_at: str | None = None
    failing_since_ms: int | None = None  # the first failed attempt since the last success (None: healthy)
    # Since when the endpoint answers slowly: its deliveries go in the slow lane (roomcast.catalog.lanes).
    slow_since_ms: int | None = None
    # "Clear All": deliveries queued at or before this moment are never sent (they end ``cleared``).
    cleared_before_ms: int | None = None
    # Recovery (roomcast.catalog.recovery): whether an automatic disable probes the endpoint until it
    # answers 2xx again; when the failing streak's warning went out; the probing that runs (since
    # the disable, its chain's id) and the probes it has claimed.
    recovery_probes: bool = True
    # Ordering keys (roomcast.ordering.model): the messages of one key one at a time, in publish
    # order; what a key does when its message ends dead.
    ordered: bool = False
    on_dead_key: OnDeadKey = OnDeadKey.PAUSE
    failing_warned_at_ms: int | None = None
    probing_since_ms: int | None = None
    probe_attempts: int = 0
    # How its webhooks look (roomcast.webhooks.formats), and whether its receiver consented to them
    # by the CloudEvents validation handshake (roomcast.webhooks.handshake).
    format: WebhookFormat = WebhookFormat.STANDARD
    cloud_events_mode: CloudEventsMode | None = None
    validation_handshake: bool = False
    # Its JavaScript transformation and the one before it, for a rollback (roomcast.transformations).
    transformation: Transformation | None = None
    previous_transformation: Transformation | None = None
    transformation_versions: int = 0  # how many versions it ever gave (the next is one more)
    # PULL only
    ack_wait_ms: int | None = None
    queue_url: str | None = None
    dead_letter_queue_url: str | None = None
    # The tenant's own id for the customer it belongs to (a portal session sees only its consumer's).
    consumer_id: str | None = None

    @property
    def request_timeout_ms(self) -> int:
        """A PUSH request's deadline: the subscription's ``timeoutMs``, else the default."""
        return self.timeout_ms or DEFAULT_PUSH_TIMEOUT_MS

    def reenabled(self, status: SubscriptionStatus = SubscriptionStatus.ACTIVE) -> Subscription:
        """Out of its disable: why and since when forgotten, its endpoint's health started afresh
        (no failing streak, no warning sent, no recovery probes running)."""
        return replace(
            self,
            status=status,
            disabled_reason=None,
            disabled_at=None,
            failing_since_ms=None,
            failing_warned_at_ms=None,
            probing_since_ms=None,
            probe_attempts=0,
        )
