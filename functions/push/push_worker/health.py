"""A PUSH endpoint's health: failing streaks, the warning before an auto-disable, auto-disable and
the recovery probes it starts (docs/operations.md; docs/decisions/0023-write-units.md;
roomcast.catalog.recovery).

A failing streak starts at a failed attempt after a success and ends with the next success; a
streak at 80% of ``disableAfterFailingMs`` warns the operations room once (``subscription.failing``),
a streak as long as it disables the subscription (and, with ``recoveryProbes``, starts probing the
endpoint until it answers again); so do a 410 Gone and the receiver's own ``webhook-delivery:
disable`` (no probes: the receiver said so).
Writes only when a streak starts or ends (the subscription, read for the batch anyway, says
whether one is running): a healthy endpoint costs nothing. A failure soon after a success this
container saw is written only once this container's attempts have kept failing for
STREAK_CONFIRM_MS (the streak then starts at the first failure): an endpoint that fails now and
then, even twice in a row, costs nothing either."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field, replace

from push_worker.batch_catalog import BatchCatalog
from roomcast.catalog import Catalog, Subscription, SubscriptionStatus, probe_delay_ms, warning_due
from roomcast.operations import SUBSCRIPTION_FAILING, OperationalEvents
from roomcast.outbox import OutboxQueue, Probe
from roomcast.platform import Conflict, iso_from_ms, limits, logger, now_iso, now_ms

# A failure this soon after a success (seen by the same container) is kept unwritten; it starts a
# failing streak once failures with no success between have lasted STREAK_CONFIRM_MS (or the
# subscription's disableAfterFailingMs, when shorter).
HEALTHY_RECENTLY_MS = 60_000
STREAK_CONFIRM_MS = 5_000
_MAX_TRACKED_SUBSCRIPTIONS = 10_000


def _bounded(seen: dict[str, int]) -> dict[str, int]:
    """``seen``, emptied first when it has grown past what a container should keep."""
    if len(seen) >= _MAX_TRACKED_SUBSCRIPTIONS:
        seen.clear()
    return seen


@dataclass
class EndpointHealth:
    catalog: Catalog
    batch_catalog: BatchCatalog
    events: OperationalEvents | None
    # Where an automatic disable's first recovery probe is sent (None: no probes).
    outbox: OutboxQueue | None = None
    # What this container saw of each subscription's health: its last success, and a failure that
    # came soon after one, kept unwritten (subscription id -> when) until another failure (the
    # streak is written, from it) or a success (forgotten).
    _last_success: dict[str, int] = field(default_factory=dict)
    _unwritten_failure: dict[str, int] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def observe(self, subscription: Subscription, succeeded: bool, now: int) -> None:
        """An answered attempt: start or end a streak, and disable a subscription failing too long."""
        since = subscription.failing_since_ms
        allowed_ms = subscription.disable_after_failing_ms or limits.DEFAULT_DISABLE_AFTER_FAILING_MS
        if succeeded:
            with self._lock:
                _bounded(self._last_success)[subscription.id] = now
                self._unwritten_failure.pop(subscription.id, None)
            if since is not None:
                self.catalog.clear_failing(subscription)
                self.batch_catalog.remember(replace(subscription, failing_since_ms=None))
            return
        if since is None:
            with self._lock:
                first = self._unwritten_failure.get(subscription.id)
                if first is not None and now - first >= HEALTHY_RECENTLY_MS:
                    first = None  # too long ago to be sure nothing succeeded since, elsewhere
                last_success = self._last_success.get(subscription.id)
                recent_success = last_success is not None and now - last_success < HEALTHY_RECENTLY_MS
                if first is None and recent_success:
                    _bounded(self._unwritten_failure)[subscription.id] = now
                    return
                if first is not None and now - first < min(STREAK_CONFIRM_MS, allowed_ms):
                    return  # failing in a row, not for long yet
                self._unwritten_failure.pop(subscription.id, None)
            since = self.catalog.mark_failing(subscription, now if first is None else first)
            self.batch_catalog.remember(replace(subscription, failing_since_ms=since))
        if subscription.status is SubscriptionStatus.DISABLED:
            return
        if now - since >= allowed_ms:
            reason = (
                f"every attempt failed for {now - since} ms (since {iso_from_ms(since)}); "
                f"disableAfterFailingMs is {allowed_ms}"
            )
            self.disable(subscription, reason, probe=subscription.recovery_probes, at_ms=now)
        elif warning_due(since, now, allowed_ms) and subscription.failing_warned_at_ms is None:
            self._warn(subscription, since, now, allowed_ms)

    def _warn(self, subscription: Subscription, since: int, now: int, allowed_ms: int) -> None:
        """The operations room hears once per streak that an automatic disable is near."""
        if not self.catalog.warn_failing(subscription, now):
            return  # another container warned already
        self.batch_catalog.remember(replace(subscription, failing_warned_at_ms=now))
        if self.events is not None:
            reason = (
                f"every attempt failed for {now - since} ms (since {iso_from_ms(since)}); it is disabled "
                f"at {allowed_ms} ms (disableAfterFailingMs)"
            )
            disabled_at = iso_from_ms(since + allowed_ms)
            self.events.subscription(
                SUBSCRIPTION_FAILING,
                subscription.tenant_id,
                subscription.room_id,
                subscription.id,
                reason,
                disabledAt=disabled_at,
            )

    def disable(
        self, subscription: Subscription, reason: str, *, probe: bool = False, at_ms: int | None = None
    ) -> None:
        """Nothing more is routed to this subscription until someone (or, with ``probe``, a
        recovery probe answered 2xx) re-enables it; the room's operations room hears of it. The
        first probe is sent before the disable is written: a crash between leaves a probe that
        finds nothing to probe, never a disabled subscription that nothing probes."""
        disabled_ms = now_ms() if at_ms is None else at_ms
        probing = probe and self.outbox is not None
        if probing and self.outbox is not None:
            ids = (subscription.tenant_id, subscription.room_id, subscription.id)
            first = Probe(*ids, disabled_ms, 0, disabled_ms + probe_delay_ms(0))
            self.outbox.later(first, disabled_ms)
        updated = replace(
            subscription,
            status=SubscriptionStatus.DISABLED,
            disabled_reason=reason,
            disabled_at=iso_from_ms(disabled_ms),
            updated_at=now_iso(),
            probing_since_ms=disabled_ms if probing else None,
            probe_attempts=0,
        )
        try:
            self.catalog.replace_subscription(updated, expected_updated_at=subscription.updated_at)
        except Conflict:  # changed meanwhile: the next failure decides again
            logger.warning("could not disable subscription", extra={"subscriptionId": subscription.id})
            self.batch_catalog.forget(subscription)
            return
        self.batch_catalog.forget(subscription)
        if self.events is not None:
            self.events.subscription_disabled(
                subscription.tenant_id, subscription.room_id, subscription.id, reason
            )
