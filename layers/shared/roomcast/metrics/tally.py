"""Facts added up into what a flush writes (pure): for each bucket item (a scope's minute and hour)
the amounts to add to its counts and sketch bins, and for each open-deliveries item (a scope's
deliveries first due in one hour, a count per minute) the amounts to add to its minutes.

A tally travels between a window's invocations as the event source's ``state`` (JSON, under
Lambda's 1 MB), with the first and the last stream sequence number it holds: what makes its
writes exactly-once (roomcast.metrics.store)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final

from roomcast.metrics.model import (
    MINUTE_PREFIX,
    OPEN_TOTAL,
    RESOLUTIONS,
    Count,
    Resolution,
    Scope,
    ScopeKind,
    scopes_of,
)
from roomcast.metrics.sketch import bin_name
from roomcast.platform import HOUR_MS, MINUTE_MS, iso_from_ms

STATE_VERSION: Final = 1
_SEPARATOR: Final = "\n"
_COUNT_NAMES: Final = frozenset(count.value for count in Count)

if TYPE_CHECKING:
    from roomcast.metrics.facts import Fact

type ItemKey = tuple[str, str]  # (PK, SK)


def scope_partition(scope: Scope) -> str:
    """``TENANT#<tenant>#METRICS#SUB#<id>`` (``#ROOM#<id>``, ``#TENANT``): a scope's buckets."""
    own = scope.kind.value if scope.id is None else f"{scope.kind.value}#{scope.id}"
    return f"TENANT#{scope.tenant_id}#METRICS#{own}"


def open_partition(scope: Scope) -> str:
    """A scope's open deliveries, one item per hour they were first due in."""
    return f"{scope_partition(scope)}#OPEN"


def bucket_sort_key(resolution: Resolution, start_ms: int) -> str:
    return f"{resolution.value}#{iso_from_ms(start_ms)}"


def open_sort_key(hour_ms: int) -> str:
    return iso_from_ms(hour_ms)


def minute_attribute(at_ms: int) -> str:
    return f"{MINUTE_PREFIX}{(at_ms % HOUR_MS) // MINUTE_MS:02d}"


def scope_of_partition(partition: str) -> Scope:
    """The scope whose buckets (or open deliveries) ``partition`` holds."""
    tenant_part, _, own = partition.removesuffix("#OPEN").partition("#METRICS#")
    kind, _, own_id = own.partition("#")
    return Scope(tenant_part.removeprefix("TENANT#"), ScopeKind(kind), own_id or None)


@dataclass
class Tally:
    """What a window's facts add, not yet written; ``first_sequence`` .. ``last_sequence``: the
    stream records they came from (zero-padded, so that text order is number order)."""

    buckets: dict[ItemKey, Counter[str]] = field(default_factory=dict)
    opens: dict[ItemKey, Counter[str]] = field(default_factory=dict)
    first_sequence: str | None = None
    last_sequence: str | None = None

    def add(self, added: Iterable[Fact], sequence: str) -> None:
        """Add a stream record's facts (its sequence number: after every record added before)."""
        padded = sequence.zfill(40)
        self.first_sequence = self.first_sequence or padded
        self.last_sequence = padded
        for fact in added:
            for scope in scopes_of(fact.place):
                self._add(scope, fact)

    def _add(self, scope: Scope, fact: Fact) -> None:
        partition = scope_partition(scope)
        for resolution in RESOLUTIONS:
            bucket = (partition, bucket_sort_key(resolution, resolution.start_of(fact.at_ms)))
            amounts = self.buckets.setdefault(bucket, Counter())
            if fact.count is not None:
                amounts[fact.count.value] += 1
            if fact.sample is not None:
                amounts[bin_name(fact.sample, fact.value_ms)] += 1
        if fact.opened:
            hour = fact.sent_from_ms - fact.sent_from_ms % HOUR_MS
            minutes = self.opens.setdefault((open_partition(scope), open_sort_key(hour)), Counter())
            minutes[minute_attribute(fact.sent_from_ms)] += fact.opened
            minutes[OPEN_TOTAL] += fact.opened

    def tenant_counts(self) -> dict[str, Counter[str]]:
        """Each tenant's counts in this tally (its minute buckets added): what the function
        reports to CloudWatch, a few metrics per tenant (docs/metrics.md)."""
        found: dict[str, Counter[str]] = {}
        for (partition, sort_key), amounts in self.buckets.items():
            scope = scope_of_partition(partition)
            if scope.kind is ScopeKind.TENANT and sort_key.startswith(f"{Resolution.MINUTE.value}#"):
                counts = found.setdefault(scope.tenant_id, Counter())
                counts.update({name: n for name, n in amounts.items() if name in _COUNT_NAMES})
        return found

    @property
    def empty(self) -> bool:
        return not self.buckets and not self.opens

    def to_state(self) -> dict[str, Any]:
        def plain(table: dict[ItemKey, Counter[str]]) -> dict[str, dict[str, int]]:
            return {_SEPARATOR.join(k): dict(amounts) for k, amounts in table.items()}

        return {
            "v": STATE_VERSION,
            "lo": self.first_sequence,
            "hi": self.last_sequence,
            "b": plain(self.buckets),
            "o": plain(self.opens),
        }

    @classmethod
    def from_state(cls, state: dict[str, Any] | None) -> Tally:
        """The tally a window's state carries (an empty one for a new window)."""
        if not state or state.get("v") != STATE_VERSION:
            return cls()

        def table(raw: dict[str, dict[str, int]]) -> dict[ItemKey, Counter[str]]:
            return {_item_key(k): Counter(amounts) for k, amounts in raw.items()}

        return cls(table(state.get("b") or {}), table(state.get("o") or {}), state.get("lo"), state.get("hi"))


def _item_key(text: str) -> ItemKey:
    partition, _, sort = text.partition(_SEPARATOR)
    return partition, sort
