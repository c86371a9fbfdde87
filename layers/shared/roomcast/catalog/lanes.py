"""Push lanes: an endpoint that answers slowly is delivered from a lane of its own, so that it
spends only that lane's capacity, never the one every other endpoint's deliveries use
(docs/decisions/0031-push-lanes.md).

A Lambda invocation of the push function holds its whole batch until the slowest webhook of it
has answered; one endpoint taking 8 s per request, with its envelopes in every batch, would make
every tenant's deliveries wait for it. So:

- the fast lane waits at most ``SLOW_ENDPOINT_MS`` for a request. Then it marks the subscription
  slow (one write) and stops waiting: the request goes on, and its answer is applied as usual when
  it comes; the slow lane receives the same attempt once the request's deadline has passed
  (``takeover_delay_ms``) and makes it only if no answer was recorded (a container that was frozen
  or lost meanwhile: a duplicate request at worst, never a lost message);
- the fast lane sends a slow subscription's envelopes on to the slow lane's queue at once, before
  any request (not an attempt: the same attempt, moved);
- the slow lane delivers them without a budget; an answer there within ``FAST_AGAIN_MS`` ends the
  mark, and the subscription's next envelopes are back in the fast lane. An endpoint recovers by
  itself (and one answering in between stays where it is).
"""

from __future__ import annotations

from enum import StrEnum
from typing import Final

from roomcast.catalog.model import Subscription, SubscriptionType

# The fast lane waits this long for a webhook request; one still in flight marks its endpoint slow.
# Well above a healthy endpoint's answer (tens to hundreds of ms), well below the timeouts (10 s).
SLOW_ENDPOINT_MS: Final = 1_000
# A slow endpoint answering within this is back in the fast lane (half the budget: one answering
# around it does not flap between the lanes).
FAST_AGAIN_MS: Final = 500
# After a request's own deadline (its timeout), this margin before the slow lane takes it over.
TAKEOVER_MARGIN_MS: Final = 5_000


class Lane(StrEnum):
    FAST = "fast"  # the push queue
    SLOW = "slow"  # the slow push queue: endpoints marked slow


def lane_of(subscription: Subscription) -> Lane:
    """Where the subscription's webhooks are sent from."""
    if subscription.type is SubscriptionType.PUSH and subscription.slow_since_ms is not None:
        return Lane.SLOW
    return Lane.FAST


def moves_lane(subscription: Subscription, received_in: Lane) -> bool:
    """An envelope received in the fast lane for a subscription marked slow goes to the slow lane
    (the other way round it stays: the slow lane delivers, and an answer in time ends the mark)."""
    return received_in is Lane.FAST and lane_of(subscription) is Lane.SLOW


def is_fast_again(latency_ms: int | None) -> bool:
    """An answer (or a failure) quick enough to end a slow mark; None: no request was made."""
    return latency_ms is not None and latency_ms < FAST_AGAIN_MS


def takeover_delay_ms(request_started_ms: int, timeout_ms: int, now_ms: int) -> int:
    """How long the slow lane waits before taking over a request the fast lane stopped waiting for:
    until the request's deadline has passed, with a margin for its answer to be recorded."""
    return max(0, request_started_ms + timeout_ms + TAKEOVER_MARGIN_MS - now_ms)
