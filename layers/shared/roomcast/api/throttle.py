"""Each tenant's request rate, checked before a request reaches its route: over it, 429
``rate_limited`` with ``Retry-After`` (roomcast.flow.request_limits;
docs/decisions/0032-tenant-request-limits.md).

The tenant is the one the authorizer resolved (``requestContext.authorizer.lambda.tenantId``); a
request without one (the public docs) is not counted. A container takes a chunk of its tenant's
allowance in one conditional write and spends it within a second: one write per chunk, not per
request."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from roomcast.api.guards import gateway_error
from roomcast.api.tenancy import tenant_of
from roomcast.flow import TOKEN_LIFE_MS, FlowGate, RequestLimit, TenantRequestsKey
from roomcast.platform import now_ms


@dataclass
class TenantThrottle:
    gate: FlowGate
    limit: RequestLimit
    clock: Callable[[], int] = now_ms
    # Per tenant: requests this container took and has not spent, and until when it may.
    _taken: dict[str, tuple[int, int]] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def check(self, event: dict[str, Any], weight: int = 1) -> dict[str, Any] | None:
        """None when the request may go on; else the 429 answer. ``weight``: how many requests of
        the tenant's rate it counts as (a request whose rules may cost a second counts as many)."""
        tenant = tenant_of(event)
        if tenant is None:
            return None
        retry_after_s = self.admit(tenant, weight)
        if retry_after_s is None:
            return None
        message = (
            f"tenant over its request rate of {self.limit.per_second:g} per second (a burst of "
            f"{self.limit.burst}); retry after {retry_after_s} s"
        )
        response = gateway_error(429, "rate_limited", message)
        response.setdefault("headers", {})["Retry-After"] = str(retry_after_s)
        return response

    def admit(self, tenant_id: str, weight: int = 1) -> int | None:
        """None when one more request of the tenant fits (``weight`` requests' worth); else the
        seconds until it does."""
        now = self.clock()
        weight = max(1, min(weight, self.limit.burst))
        with self._lock:
            left, until = self._taken.get(tenant_id, (0, 0))
            if left >= weight and now < until:
                self._taken[tenant_id] = (left - weight, until)
                return None
        booked_until = now
        for requests in sorted({max(self.limit.chunk(), weight), weight}, reverse=True):
            answer = self.gate.reserve_rate(
                TenantRequestsKey(tenant_id),
                self.limit.interval_ms(requests),
                now,
                self.limit.max_wait_ms(requests),
            )
            if answer.reserved:
                with self._lock:
                    self._taken[tenant_id] = (requests - weight, now + TOKEN_LIFE_MS)
                return None
            booked_until = answer.reservation.start_at_ms
        return self.limit.retry_after_s(booked_until, now)
