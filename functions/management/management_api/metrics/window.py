"""The window a metrics request asks for, checked (pure)."""

from __future__ import annotations

from dataclasses import dataclass

from roomcast.metrics import Resolution
from roomcast.platform import InvalidRequest


@dataclass(frozen=True)
class Window:
    """What a request asks for: [from_ms, to_ms) in buckets of ``resolution``."""

    resolution: Resolution
    from_ms: int
    to_ms: int


# The window a request without ``from`` gets: the last hour of minutes, the last day of hours.
DEFAULT_SPAN_MS = {Resolution.MINUTE: 3_600_000, Resolution.HOUR: 86_400_000}


def window(resolution: Resolution, from_ms: int | None, to_ms: int | None, now: int) -> Window:
    """The window asked for, checked: ``from`` before ``to``, at most ``max_points`` buckets
    (400 ``invalid_window`` naming the parameter otherwise)."""
    end = to_ms if to_ms is not None else now
    start = from_ms if from_ms is not None else end - DEFAULT_SPAN_MS[resolution]
    if start >= end:
        raise _invalid("from", "must be before to")
    buckets = (end - resolution.start_of(start) + resolution.ms - 1) // resolution.ms
    if buckets > resolution.max_points:
        raise _invalid(
            "from",
            f"the window holds {buckets} buckets of {resolution.value}; at most "
            f"{resolution.max_points} in one request",
        )
    return Window(resolution, start, end)


def _invalid(parameter: str, problem: str) -> InvalidRequest:
    return InvalidRequest(
        f"{parameter}: {problem}",
        code="invalid_window",
        http_status=400,
        details=[{"field": f"query.{parameter}", "problem": problem, "type": "invalid_window"}],
    )
