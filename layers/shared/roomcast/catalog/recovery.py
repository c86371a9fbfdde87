"""Endpoints that recover by themselves (docs/operations.md, "Endpoint recovery"). Pure.

- **Warning**: a failing streak that has lasted WARN_AT_FRACTION of the subscription's
  ``disableAfterFailingMs`` sends ``subscription.failing`` to the room's operations room, once per
  streak, before the automatic disable.
- **Probes**: a subscription disabled automatically (its streak ran its length, not a 410, not the
  receiver's own ``webhook-delivery: disable``, not an operator) is probed while it stays disabled
  and ``recoveryProbes`` is on: a signed ``roomcast.ping`` request, one at a time, the n-th
  ``probe_delay_ms(n)`` after the one before (1 minute, doubling, at most an hour). A 2xx
  re-enables it (``subscription.enabled``); what waited meanwhile (held, not ended) is then
  delivered, or expires by the usual rules.
"""

from __future__ import annotations

import json
from typing import Final

from roomcast.catalog.model import Subscription, SubscriptionStatus
from roomcast.platform import HOUR_MS, MINUTE_MS, iso_from_ms

WARN_AT_FRACTION: Final = 0.8
PROBE_FIRST_MS: Final = MINUTE_MS
PROBE_MAX_MS: Final = HOUR_MS
PING_EVENT: Final = "roomcast.ping"
RECOVERED: Final = "its endpoint answered a recovery probe 2xx"


def warning_due(failing_since_ms: int, now_ms: int, allowed_ms: int) -> bool:
    """Whether a streak this long is close enough to the automatic disable to warn."""
    return now_ms - failing_since_ms >= allowed_ms * WARN_AT_FRACTION


def probe_delay_ms(attempt: int) -> int:
    """The wait before probe ``attempt`` (0: the first, after the disable)."""
    return min(PROBE_FIRST_MS * (1 << min(attempt, 16)), PROBE_MAX_MS)


def probing(subscription: Subscription) -> bool:
    """Disabled automatically, with probes on: its deliveries wait (held) instead of ending."""
    return (
        subscription.status is SubscriptionStatus.DISABLED
        and subscription.probing_since_ms is not None
        and subscription.recovery_probes
    )


def probe_message_id(subscription_id: str, chain_ms: int, attempt: int) -> str:
    """The probe's ``webhook-id``: new for each probe (a receiver must not deduplicate it away)."""
    return f"ping_{subscription_id}_{chain_ms}_{attempt}"


def ping_body(subscription: Subscription, attempt: int, now_ms: int) -> bytes:
    """The probe's JSON body: what it is, which subscription, since when it is disabled."""
    body = {
        "type": PING_EVENT,
        "roomId": subscription.room_id,
        "subscriptionId": subscription.id,
        "probe": attempt,
        "disabledAt": subscription.disabled_at,
        "sentAt": iso_from_ms(now_ms),
    }
    return json.dumps(body, separators=(",", ":")).encode("utf-8")
