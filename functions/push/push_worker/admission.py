"""Admission of one webhook request under its subscription's flow control.

``admit`` either admits the request (the caller must ``release`` it when the request is over) or
says how long to hold it back. Concurrency is checked twice: a semaphore in this process (so that
the threads of one batch do not poll DynamoDB against each other) and a lease in the shared store
(so that every invocation together stays within ``maxConcurrency``). The rate slot is taken after
the lease, so a slot is never spent on a request that then cannot start.
"""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field

from roomcast.catalog import Subscription
from roomcast.flow import (
    LOCAL_WAIT_MS,
    FlowGate,
    FlowKey,
    lease_ms,
    lease_poll_ms,
    rate_interval_ms,
)
from roomcast.platform import logger, now_ms


@dataclass(frozen=True)
class Admitted:
    release: Callable[[], None] = lambda: None


@dataclass(frozen=True)
class HeldBack:
    wait_ms: int
    reason: str


ADMITTED_FREELY = Admitted()


def _sleep_ms(milliseconds: int) -> None:
    time.sleep(milliseconds / 1000)


@dataclass
class FlowControl:
    gate: FlowGate
    clock: Callable[[], int] = now_ms
    sleep_ms: Callable[[int], None] = _sleep_ms
    local_wait_ms: int = LOCAL_WAIT_MS
    _local: dict[tuple[str, int], threading.BoundedSemaphore] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def admit(self, subscription: Subscription) -> Admitted | HeldBack:
        limit, rate = subscription.max_concurrency, subscription.rate_limit_per_second
        if limit is None and rate is None:
            return ADMITTED_FREELY
        deadline = self.clock() + self.local_wait_ms
        flow = FlowKey(subscription.tenant_id, subscription.id)
        releases: list[Callable[[], None]] = []
        if limit is not None:
            held = self._lease(flow, subscription, limit, deadline, releases)
            if held is not None:
                return held
        if rate is not None:
            now = self.clock()
            answer = self.gate.reserve_rate(flow, rate_interval_ms(rate), now, max(0, deadline - now))
            if not answer.reserved:
                _run(releases)
                return HeldBack(answer.reservation.wait_ms(now), "rateLimitPerSecond")
            wait = answer.reservation.wait_ms(self.clock())
            if wait:
                self.sleep_ms(wait)
        return Admitted(lambda: _run(releases))

    def _lease(
        self,
        flow: FlowKey,
        subscription: Subscription,
        limit: int,
        deadline: int,
        releases: list[Callable[[], None]],
    ) -> HeldBack | None:
        local = self._semaphore(subscription.id, limit)
        if not local.acquire(timeout=max(0, deadline - self.clock()) / 1000):
            return HeldBack(0, "maxConcurrency")
        releases.append(local.release)
        lease_id = uuid.uuid4().hex
        timeout = subscription.request_timeout_ms
        tries, free = 0, True  # the first try writes at once; then reads until a lease looks free
        while True:
            now = self.clock()
            if free and self.gate.acquire_lease(flow, lease_id, limit, now + lease_ms(timeout), now):
                releases.append(lambda: self.gate.release_lease(flow, lease_id))
                return None
            pause = lease_poll_ms(tries)
            if now + pause > deadline:
                _run(releases)
                releases.clear()
                return HeldBack(0, "maxConcurrency")
            self.sleep_ms(pause)
            tries += 1
            free = self.gate.lease_free(flow, limit, self.clock())

    def _semaphore(self, subscription_id: str, limit: int) -> threading.BoundedSemaphore:
        """One per subscription and limit: a PATCHed limit gets a new one from the next batch on."""
        with self._lock:
            return self._local.setdefault((subscription_id, limit), threading.BoundedSemaphore(limit))


def _run(releases: list[Callable[[], None]]) -> None:
    """Release in reverse order (the shared lease before the local semaphore). A lease that cannot
    be released (AWS failing) lapses by itself after its request's timeout and a margin: the
    delivery it guarded is not failed for it."""
    for release in reversed(releases):
        try:
            release()
        except Exception:
            logger.warning("could not release a flow-control lease; it lapses by itself", exc_info=True)
