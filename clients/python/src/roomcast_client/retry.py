"""When to retry a request and how long to wait: pure functions, no I/O.

Retried: 429 (after its ``Retry-After`` when it sends one), 502, 503, 504 and transport errors,
with exponential backoff and full jitter, at most ``max_retries`` times. A request that is not
safe to repeat (creating a room, a subscription or a key; rotating a secret; retrying deliveries;
replaying dead letters) is retried only when it certainly did not reach the API: a connection
that could not be opened, or a 429 (the gateway's throttling refuses before any function runs).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

RETRYABLE_STATUSES = frozenset({429, 502, 503, 504})


@dataclass(frozen=True)
class RetryPolicy:
    """``max_retries`` retries after the first attempt; the n-th waits a uniformly random time in
    [0, min(max_delay_s, base_delay_s * 2**n)] ("full jitter"), or what ``Retry-After`` asks if it
    is longer, unless that is over ``max_retry_after_s`` (then the 429 is raised at once)."""

    max_retries: int = 3
    base_delay_s: float = 0.5
    max_delay_s: float = 8.0
    max_retry_after_s: float = 60.0


def backoff_delay_s(
    policy: RetryPolicy, retry_number: int, uniform: Callable[[float, float], float]
) -> float:
    """The wait before retry ``retry_number`` (0 for the first retry): full jitter."""
    ceiling = min(policy.max_delay_s, policy.base_delay_s * (2**retry_number))
    return uniform(0.0, ceiling)


def retry_delay_s(
    policy: RetryPolicy,
    retry_number: int,
    *,
    status: int | None,
    retry_after_s: float | None = None,
    reached_api: bool = True,
    retry_safe: bool = True,
    extra_retryable_statuses: frozenset[int] = frozenset(),
    uniform: Callable[[float, float], float] = random.uniform,
) -> float | None:
    """How long to wait before retrying, or None to give up and surface the failure.

    ``status`` is the answer's status, or None for a transport error; ``reached_api`` is False
    only when the request certainly never left (a connection that could not be opened).
    """
    if retry_number >= policy.max_retries:
        return None
    if status is None:
        if retry_safe or not reached_api:
            return backoff_delay_s(policy, retry_number, uniform)
        return None
    if status == 429:
        if retry_after_s is not None and retry_after_s > policy.max_retry_after_s:
            return None
        return max(retry_after_s or 0.0, backoff_delay_s(policy, retry_number, uniform))
    if (status in RETRYABLE_STATUSES and retry_safe) or status in extra_retryable_statuses:
        return backoff_delay_s(policy, retry_number, uniform)
    return None
