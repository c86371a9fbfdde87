"""EventBridge's rate schedules, locally: a function's ``Type: Schedule`` event (SAM) with
``rate(N unit)`` is invoked every N units with a Scheduled Event, as EventBridge would. The local
stack may run seconds where AWS runs minutes (``rate(2 seconds)``: AWS's smallest is a minute)."""

from __future__ import annotations

import re
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from roomcast_dev.pollers import Poller

_RATE = re.compile(r"^rate\((\d+) (second|seconds|minute|minutes|hour|hours|day|days)\)$")
_UNIT_SECONDS = {"second": 1, "minute": 60, "hour": 3600, "day": 86400}


@dataclass(frozen=True)
class RateTrigger:
    function_id: str
    every_seconds: float


def every_seconds(expression: str) -> float:
    """The period of ``rate(N unit)`` in seconds (ValueError for another kind of schedule)."""
    found = _RATE.match(expression.strip())
    if found is None:
        raise ValueError(f"not a rate schedule the local stack runs: {expression!r}")
    return int(found.group(1)) * _UNIT_SECONDS[found.group(2).rstrip("s")]


def rate_trigger(function_id: str, properties: dict[str, Any], resolve: Callable[[Any], Any]) -> RateTrigger:
    return RateTrigger(function_id, every_seconds(str(resolve(properties["Schedule"]))))


def scheduled_event(region: str, account: str) -> dict[str, Any]:
    """What EventBridge sends a rule's target at each tick."""
    return {
        "version": "0",
        "id": str(uuid.uuid4()),
        "detail-type": "Scheduled Event",
        "source": "aws.events",
        "account": account,
        "time": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "region": region,
        "resources": [],
        "detail": {},
    }


class RatePoller(Poller):
    """Invokes one function every ``every_seconds`` (one invocation at a time, as a rule with one
    target; a tick that comes while the last one still runs waits for it)."""

    kind = "rate"

    def __init__(
        self, trigger: RateTrigger, invoke: Callable[[str, dict[str, Any]], Any], region: str, account: str
    ) -> None:
        super().__init__(trigger.function_id, threads=1, join_seconds=10.0)
        self.trigger = trigger
        self._invoke = invoke
        self._region, self._account = region, account
        self._next = time.monotonic() + trigger.every_seconds

    def _open(self) -> None:
        return None

    def _step(self, clients: Any) -> None:
        wait = self._next - time.monotonic()
        if wait > 0:
            time.sleep(min(wait, 0.25))
            return
        self._next = time.monotonic() + self.trigger.every_seconds
        self.invocations += 1
        self._invoke(self.trigger.function_id, scheduled_event(self._region, self._account))
