"""Lambda's tumbling windows on a DynamoDB stream (TumblingWindowInSeconds), the pure part: which
window a record read now belongs to, the event an invocation in a window gets, the state its answer
carries, and whether a shard's pending records make a batch yet (MaximumBatchingWindowInSeconds).

As AWS documents it (services-ddb-windows): windows are aligned to multiples of their length in
epoch seconds; each shard has its own state per window, ``{}`` at the start, replaced by the
``state`` of every successful answer (an answer without one is a failed invocation); after the
window's end a final invocation (``isFinalInvokeForWindow``) hands over its last records and its
state, and the state is dropped once it succeeded. ``stream_sources.StreamPoller`` does the I/O.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Any


def utc_timestamp(seconds: float) -> str:
    """An epoch time as the window's bounds are written: ISO 8601 in UTC, to the second."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(seconds))


@dataclass
class Window:
    """One shard's open tumbling window: its bounds, its state, and whether it saw any records
    (a window without records nor state has nothing for a final invocation to report)."""

    start: float
    end: float
    state: dict[str, Any] = field(default_factory=dict)
    delivered: bool = False

    @classmethod
    def around(cls, now: float, seconds: float) -> Window:
        """The window open at ``now``: aligned to the wall clock, so that every shard and every run
        cuts time at the same instants (a window of 60 s starts on the minute)."""
        start = math.floor(now / seconds) * seconds
        return cls(start=start, end=start + seconds)

    def ended(self, now: float) -> bool:
        return now >= self.end

    def eventful(self) -> bool:
        """Whether its final invocation is due: records were delivered in it, or it holds a state."""
        return self.delivered or bool(self.state)

    def event(
        self, records: list[dict[str, Any]], shard_id: str, stream_arn: str, final: bool
    ) -> dict[str, Any]:
        """The event of an invocation in this window (a DynamodbTimeWindowEvent). The function gets a
        copy of the state: what it does to it counts only through its answer."""
        return {
            "Records": records,
            "window": {"start": utc_timestamp(self.start), "end": utc_timestamp(self.end)},
            "state": dict(self.state),
            "shardId": shard_id,
            "eventSourceARN": stream_arn,
            "isFinalInvokeForWindow": final,
            "isWindowTerminatedEarly": False,  # the 1 MB state limit is not enforced locally
        }


def answer_state(result: Any) -> dict[str, Any] | None:
    """The state an answer in a window gives the next invocation; None when it gives none (not a
    JSON object with a ``state`` object), which Lambda counts as a failed invocation."""
    if not isinstance(result, dict):
        return None
    state = result.get("state")
    if not isinstance(state, dict) or not all(isinstance(key, str) for key in state):
        return None
    return dict(state)


def batch_ready(read_at: list[float], batch_size: int, batching_window_seconds: float, now: float) -> bool:
    """Whether a shard's pending records (``read_at``: when each was read, oldest first) are to be
    invoked now: at once without a batching window, else once ``batch_size`` of them are there or the
    oldest has waited the window out (MaximumBatchingWindowInSeconds, as for an SQS trigger)."""
    if not read_at:
        return False
    if batching_window_seconds <= 0 or len(read_at) >= batch_size:
        return True
    return now - read_at[0] >= batching_window_seconds
