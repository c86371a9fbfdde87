"""Numbers in filter policies (ADR 0043): equal within SNS's tolerance, ``numeric`` conditions as
sorted intervals, and the searches that match sorted lists of them without comparing every pair."""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

TOLERANCE: Final = 1e-6  # numbers match within this (5 = 5.0000001), as SNS's five decimals do


def is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def as_float(value: float) -> float:
    """A number as a float; an integer too large for one is ±infinity (it matches no listed number)."""
    try:
        return float(value)
    except OverflowError:
        return math.inf if value > 0 else -math.inf


def numbers_equal(expected: float, value: float) -> bool:
    return math.isclose(as_float(value), float(expected), rel_tol=0, abs_tol=TOLERANCE)


@dataclass(frozen=True)
class _Interval:
    low: float
    low_closed: bool
    high: float
    high_closed: bool

    def holds(self, value: float) -> bool:
        above = value > self.low or (self.low_closed and value == self.low)
        return above and (value < self.high or (self.high_closed and value == self.high))


def _interval(pairs: tuple[tuple[str, float], ...]) -> _Interval:
    """A ``numeric`` condition (one comparison, or a lower then an upper bound) as an interval."""
    low, low_closed, high, high_closed = -math.inf, False, math.inf, False
    for operator, bound in pairs:
        if operator in (">", ">=", "="):
            low, low_closed = bound, operator != ">"
        if operator in ("<", "<=", "="):
            high, high_closed = bound, operator != "<"
    return _Interval(low, low_closed, high, high_closed)


class NumericRanges:
    """A key's ``numeric`` conditions as intervals sorted by their lower bound: whether a number is
    in one of them is one binary search (and the interval reaching highest among those below it)."""

    def __init__(self, ranges: Sequence[tuple[tuple[str, float], ...]]) -> None:
        self.intervals = sorted(
            (_interval(pairs) for pairs in ranges), key=lambda i: (i.low, not i.low_closed)
        )
        self.lows = [i.low for i in self.intervals]
        self.highest: list[int] = []  # for each prefix of the intervals, the one reaching highest
        for number, interval in enumerate(self.intervals):
            best = self.highest[-1] if self.highest else number
            self.highest.append(number if interval.high >= self.intervals[best].high else best)

    def __bool__(self) -> bool:
        return bool(self.intervals)

    def contains(self, value: float) -> bool:
        below = bisect_right(self.lows, value)
        if below == 0:
            return False
        reaching = self.intervals[self.highest[below - 1]]
        if reaching.holds(value):
            return True
        if reaching.high < value:
            return False
        return any(i.holds(value) for i in self.intervals[:below])  # on a bound: each one, exactly

    def any_of(self, numbers: Sequence[float]) -> bool:
        """Whether one of ``numbers`` (sorted) is in an interval: the fewer of the two is walked."""
        if len(numbers) <= len(self.intervals):
            return any(self.contains(n) for n in numbers)
        return any(_smallest_in(numbers, i) for i in self.intervals)


def _smallest_in(numbers: Sequence[float], interval: _Interval) -> bool:
    at = (bisect_left if interval.low_closed else bisect_right)(numbers, interval.low)
    return at < len(numbers) and interval.holds(numbers[at])


def any_near(one: Sequence[float], other: Sequence[float]) -> bool:
    """Whether a number of ``one`` is within the tolerance of one of ``other`` (both sorted): each
    of the shorter looked up in the longer."""
    shorter, longer = (one, other) if len(one) <= len(other) else (other, one)
    return any(near_any(longer, as_float(n)) for n in shorter)


def near_any(sorted_numbers: Sequence[float], value: float) -> bool:
    """Whether a number within the tolerance of ``value`` is in ``sorted_numbers``."""
    at = bisect_left(sorted_numbers, value - TOLERANCE)
    return at < len(sorted_numbers) and numbers_equal(sorted_numbers[at], value)


def outside_all(numbers: Sequence[float], excluded: Sequence[float]) -> bool:
    """Whether a number of ``numbers`` (sorted) is farther than the tolerance from every one of
    ``excluded`` (sorted): a look in each gap between the excluded numbers."""
    if not numbers:
        return False
    if not excluded:
        return True
    if len(numbers) <= len(excluded):
        return any(not near_any(excluded, as_float(n)) for n in numbers)
    low = -math.inf
    for value in excluded:
        at = bisect_right(numbers, low)
        if at < len(numbers) and numbers[at] < value - TOLERANCE and not numbers_equal(value, numbers[at]):
            return True
        low = max(low, value + TOLERANCE)
    at = bisect_right(numbers, low)
    return at < len(numbers)
