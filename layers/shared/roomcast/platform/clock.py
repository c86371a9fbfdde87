"""Wall-clock helpers, the only ones: every timestamp roomcast writes is UTC ISO-8601 with milliseconds.

Services take a clock (a ``Callable[[], int]`` of epoch milliseconds, default ``now_ms``) so that
tests can move time; these are the defaults and the conversions.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta
from typing import Final

SECOND_MS: Final = 1_000
MINUTE_MS: Final = 60 * SECOND_MS
HOUR_MS: Final = 60 * MINUTE_MS
DAY_MS: Final = 24 * HOUR_MS


def utc_now() -> datetime:
    return datetime.now(UTC)


def now_ms() -> int:
    """Epoch milliseconds now."""
    return int(time.time() * 1000)


def iso_timestamp(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def now_iso() -> str:
    return iso_timestamp(utc_now())


def iso_from_ms(epoch_ms: int) -> str:
    """Epoch milliseconds as the ISO-8601 text roomcast writes."""
    return iso_timestamp(datetime.fromtimestamp(epoch_ms / 1000, UTC))


_EPOCH: Final = datetime(1970, 1, 1, tzinfo=UTC)


def ms_from_iso(text: str) -> int:
    """Epoch milliseconds of an ISO-8601 timestamp with its offset (ValueError when it is not one)."""
    moment = datetime.fromisoformat(text)
    if moment.tzinfo is None:
        raise ValueError(f"no UTC offset: {text!r}")
    return (moment - _EPOCH) // timedelta(milliseconds=1)
