"""A tenant's request rate: what one tenant may take of the API, so that a busy customer cannot
take every other customer's share (docs/decisions/0032-tenant-request-limits.md).

A generic cell rate (GCRA) per tenant, kept in one DynamoDB item the tenant's own requests write:
a request may start when the tenant's theoretical arrival time is at most ``burst`` intervals
ahead of now. A container takes ``chunk`` requests' worth at once (one write per chunk, not per
request) and spends them within ``TOKEN_LIFE_MS``; what it does not spend is lost, never lent."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Final

# How long a container may spend the requests it took from its tenant's allowance.
TOKEN_LIFE_MS: Final = 1_000


@dataclass(frozen=True)
class RequestLimit:
    per_second: float  # > 0
    burst: int  # requests above the rate a tenant may send at once (> 0)

    def interval_ms(self, requests: int = 1) -> int:
        """The time ``requests`` requests take of the tenant's allowance."""
        return max(1, math.ceil(requests * 1000 / self.per_second))

    @property
    def burst_ms(self) -> int:
        return self.interval_ms(self.burst)

    def chunk(self) -> int:
        """How many requests a container takes at once: a tenth of a second's worth, at least one,
        at most a quarter of the burst (so that containers cannot hoard the tenant's burst)."""
        return max(1, min(self.burst // 4, math.ceil(self.per_second / 10)))

    def max_wait_ms(self, requests: int) -> int:
        """How far ahead of now the tenant's allowance may be booked before ``requests`` more."""
        return self.burst_ms - self.interval_ms(requests)

    def retry_after_s(self, booked_until_ms: int, now_ms: int) -> int:
        """Whole seconds until one request fits again (at least 1)."""
        wait_ms = booked_until_ms - now_ms - self.max_wait_ms(1)
        return max(1, math.ceil(wait_ms / 1000))
