"""Flow control of PUSH subscriptions and waiting while paused: pure arithmetic, no AWS.

- ``rateLimitPerSecond`` is a GCRA (the token bucket written as one number): the subscription's
  *theoretical arrival time* ``tat_ms`` is when its next request may start; each start moves it
  one interval on. Starts are therefore at least ``rate_interval_ms`` apart, across every
  invocation that shares the stored ``tat_ms`` (docs/decisions/0016-flow-control.md).
- ``maxConcurrency`` is a set of leases: one per request in flight, each with an expiry so that a
  crashed invocation's lease lapses by itself.
- A delivery that finds no room waits in its invocation for a short while (``LOCAL_WAIT_MS``);
  past that it is re-enqueued with a delay (``held_back_delay_ms``): a wait, never an attempt.
  Repeated holds spread out at random so that a backlog does not return in one wave.
- A paused subscription's deliveries are re-checked after 1 s, 2 s, 4 s … up to
  ``PAUSED_MAX_WAIT_MS``: resuming reaches the whole backlog within that bound.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Final

from roomcast.platform import MINUTE_MS, SECOND_MS

# A delivery waits in its invocation this long at most for a rate slot or a lease.
LOCAL_WAIT_MS: Final = 5 * SECOND_MS
# How often a waiting delivery asks again for a lease (doubling up to the cap).
LEASE_POLL_FIRST_MS: Final = 50
LEASE_POLL_MAX_MS: Final = 400
# A lease outlives its request's timeout by this much before others may take it over.
LEASE_MARGIN_MS: Final = 30 * SECOND_MS
PAUSED_FIRST_WAIT_MS: Final = SECOND_MS
PAUSED_MAX_WAIT_MS: Final = 5 * MINUTE_MS
# SQS delays are whole seconds; a held-back delivery waits at least one.
MIN_HELD_BACK_MS: Final = SECOND_MS
# A delivery held back again and again spreads out (random, doubling up to this) so that a large
# backlog behind a low limit does not come back all at once.
HELD_BACK_SPREAD_MAX_MS: Final = MINUTE_MS


@dataclass(frozen=True)
class Reservation:
    """A rate slot: the request may start at ``start_at_ms``; the next one at ``next_tat_ms``."""

    start_at_ms: int
    next_tat_ms: int

    def wait_ms(self, now_ms: int) -> int:
        return max(0, self.start_at_ms - now_ms)


def rate_interval_ms(rate_per_second: float) -> int:
    """Milliseconds between two starts, rounded up (never faster than the limit)."""
    if rate_per_second <= 0:
        raise ValueError("rate_per_second must be positive")
    return max(1, math.ceil(SECOND_MS / rate_per_second))


def reserve_start(now_ms: int, tat_ms: int | None, interval_ms: int) -> Reservation:
    """The next slot after ``tat_ms`` (or now, when the subscription has been idle)."""
    start = now_ms if tat_ms is None else max(now_ms, tat_ms)
    return Reservation(start, start + interval_ms)


def held_back_delay_ms(wait_ms: int, holds: int = 0, random_fraction: float = 0.0) -> int:
    """How long a delivery with no room goes back to the queue: the wait, plus a random spread that
    doubles with each earlier hold, in whole seconds, ≥ 1 s."""
    spread_ms = random_fraction * min(HELD_BACK_SPREAD_MAX_MS, SECOND_MS * (1 << min(holds, 20)))
    return max(MIN_HELD_BACK_MS, math.ceil((wait_ms + spread_ms) / SECOND_MS) * SECOND_MS)


def paused_wait_ms(holds: int) -> int:
    """The re-check delay after ``holds`` earlier holds: 1 s, 2 s, 4 s … capped."""
    return min(PAUSED_MAX_WAIT_MS, PAUSED_FIRST_WAIT_MS * (1 << min(holds, 20)))


def lease_ms(timeout_ms: int) -> int:
    """How long a concurrency lease is held at most: the request's timeout and a margin."""
    return timeout_ms + LEASE_MARGIN_MS


def lease_poll_ms(tries: int) -> int:
    return min(LEASE_POLL_MAX_MS, LEASE_POLL_FIRST_MS * (1 << min(tries, 10)))


def live_leases(leases: dict[str, int], now_ms: int) -> dict[str, int]:
    """The leases that have not lapsed."""
    return {lease: expires for lease, expires in leases.items() if expires > now_ms}
