"""Delivery policy and exponential backoff: pure functions, no AWS, no clock.

For a destination, after failed attempt ``k`` (0 = the first delivery) the next attempt is due
``T(k) = deliveryDelayMs × deliveryDelayMultiplier^k`` later — or ``retryScheduleMs[k]`` when
a schedule is given (its last entry repeats) — capped by ``maxDelayMs``, stretched by up to
``jitter × T`` at random, and never earlier than a ``Retry-After`` the subscriber sent.
After failed attempt ``deliveryAttempts`` the message is dead; a next attempt that would fall
at or after the room's expiry makes it expired instead.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction

from roomcast.catalog.model import Room, Subscription
from roomcast.platform import limits


@dataclass(frozen=True)
class DeliveryPolicy:
    """The effective policy of one destination: subscription overrides, else the room's values."""

    delivery_delay_ms: int
    delivery_delay_multiplier: float
    delivery_attempts: int
    max_delay_ms: int | None = None
    jitter: float = 0.0
    retry_schedule_ms: tuple[int, ...] | None = None


def effective_policy(room: Room, subscription: Subscription) -> DeliveryPolicy:
    overrides = subscription.overrides

    def pick[T](override: T | None, room_value: T) -> T:
        return room_value if override is None else override

    return DeliveryPolicy(
        delivery_delay_ms=pick(overrides.delivery_delay_ms, room.delivery_delay_ms),
        delivery_delay_multiplier=pick(overrides.delivery_delay_multiplier, room.delivery_delay_multiplier),
        delivery_attempts=pick(overrides.delivery_attempts, room.delivery_attempts),
        max_delay_ms=overrides.max_delay_ms,
        jitter=overrides.jitter or 0.0,
        retry_schedule_ms=overrides.retry_schedule_ms,
    )


def _cap_ms(policy: DeliveryPolicy) -> int:
    if policy.max_delay_ms is None:
        return limits.MAX_SINGLE_DELAY_MS
    return min(policy.max_delay_ms, limits.MAX_SINGLE_DELAY_MS)


def base_delay_ms(policy: DeliveryPolicy, failed_attempt: int) -> int:
    """T(k) before jitter and Retry-After: the formula or the schedule, capped."""
    if failed_attempt < 0:
        raise ValueError("attempts count from 0")
    cap = _cap_ms(policy)
    if policy.retry_schedule_ms:
        schedule = policy.retry_schedule_ms
        return min(schedule[min(failed_attempt, len(schedule) - 1)], cap)
    # Logarithms keep huge exponents (multiplier 10, attempt 50) from overflowing a float.
    if policy.delivery_delay_ms == 0:
        return 0
    log_delay = math.log(policy.delivery_delay_ms) + failed_attempt * math.log(
        policy.delivery_delay_multiplier
    )
    if log_delay >= math.log(cap):
        return cap
    # Exact below the cap, so equal delays always round to the same millisecond.
    exact = Fraction(policy.delivery_delay_ms) * Fraction(policy.delivery_delay_multiplier) ** failed_attempt
    return min(round(exact), cap)


def retry_delay_ms(
    policy: DeliveryPolicy,
    failed_attempt: int,
    *,
    retry_after_ms: int | None = None,
    random_fraction: float = 0.0,
) -> int:
    """How long to wait after failed attempt ``failed_attempt`` before the next one.

    ``random_fraction`` in [0, 1) draws the jitter: the delay grows by up to ``jitter`` of itself,
    so jitter spreads retries out without ever making one earlier than the formula (and never
    past the cap). ``Retry-After`` raises the delay, never lowers it, up to the 7-day bound.
    """
    if not 0.0 <= random_fraction < 1.0:
        raise ValueError("random_fraction must be in [0, 1)")
    base = base_delay_ms(policy, failed_attempt)
    delay = min(round(base * (1.0 + policy.jitter * random_fraction)), max(base, _cap_ms(policy)))
    if retry_after_ms is not None and retry_after_ms > delay:
        delay = min(retry_after_ms, limits.MAX_SINGLE_DELAY_MS)
    return delay


class FailureOutcome(StrEnum):
    """What follows a failed attempt."""

    RETRY = "retry"
    DEAD = "dead"
    EXPIRED = "expired"


@dataclass(frozen=True)
class NextStep:
    outcome: FailureOutcome
    next_attempt: int
    delay_ms: int = 0
    due_at_ms: int | None = None


def after_failure(
    policy: DeliveryPolicy,
    failed_attempt: int,
    now_ms: int,
    expires_at_ms: int | None,
    *,
    retry_after_ms: int | None = None,
    random_fraction: float = 0.0,
) -> NextStep:
    """What happens after attempt ``failed_attempt`` failed (retryably) at ``now_ms``."""
    if failed_attempt >= policy.delivery_attempts:
        return NextStep(FailureOutcome.DEAD, failed_attempt)
    delay = retry_delay_ms(
        policy, failed_attempt, retry_after_ms=retry_after_ms, random_fraction=random_fraction
    )
    due = now_ms + delay
    if expires_at_ms is not None and due >= expires_at_ms:
        return NextStep(FailureOutcome.EXPIRED, failed_attempt + 1, delay, due)
    return NextStep(FailureOutcome.RETRY, failed_attempt + 1, delay, due)


def is_expired(now_ms: int, expires_at_ms: int | None) -> bool:
    """No attempt is made at or after publishedAt + expiration."""
    return expires_at_ms is not None and now_ms >= expires_at_ms


def expires_at(published_at_ms: int, message_expiration_ms: int | None) -> int | None:
    return published_at_ms + message_expiration_ms if message_expiration_ms else None


@dataclass(frozen=True)
class ScheduledAttempt:
    attempt: int
    delay_ms: int  # wait before this attempt (0 for the first delivery)
    since_publish_ms: int  # if every earlier attempt failed at once
    cut_by_expiry: bool = False


def schedule(policy: DeliveryPolicy, message_expiration_ms: int | None) -> list[ScheduledAttempt]:
    """Every attempt of the policy (jitter and Retry-After aside), marking those past the expiry."""
    rows = [ScheduledAttempt(0, 0, 0)]
    elapsed = 0
    for failed in range(policy.delivery_attempts):
        delay = base_delay_ms(policy, failed)
        elapsed += delay
        cut = (
            message_expiration_ms is not None
            and message_expiration_ms > 0
            and elapsed >= message_expiration_ms
        )
        rows.append(ScheduledAttempt(failed + 1, delay, elapsed, cut))
    return rows
