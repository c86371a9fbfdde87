"""A message's long payload arrays, indexed once for every subscription's filter (ADR 0043): each
array's strings sorted and hashed, its numbers sorted, which of true, false and null it holds; and
a failed value's quote, serialised no further than it is shown."""

from __future__ import annotations

import json
from bisect import bisect_left
from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass, field
from functools import cached_property


class ArrayIndex:
    """One payload array's elements, sorted and hashed (once per message, in one pass)."""

    def __init__(self, elements: Sequence[object]) -> None:
        self.size = len(elements)
        try:  # each distinct (type, value) once, in C: true, 1 and 1.0 stay apart
            distinct: Collection[tuple[type, object]] = set(zip(map(type, elements), elements, strict=True))
        except TypeError:  # an object or an array among them: unhashable, so one by one
            distinct = [(type(e), e) for e in elements]
        self.string_set: frozenset[str] = frozenset(v for t, v in distinct if t is str)  # type: ignore[misc]
        # As given: an integer past a float's range compares exactly.
        self.numbers: list[float] = sorted({v for t, v in distinct if t is int or t is float})  # type: ignore[misc]
        self.constants = [c for c in (None, True, False) if any(v is c for _, v in distinct)]
        self.containers = any(t is dict or t is list for t, _ in distinct)

    @cached_property
    def strings(self) -> list[str]:
        return sorted(self.string_set)

    @cached_property
    def reversed_strings(self) -> list[str]:
        return sorted(s[::-1] for s in self.string_set)

    @cached_property
    def folded(self) -> frozenset[str]:
        return frozenset(s.casefold() for s in self.string_set)

    def constant(self, constant: object) -> bool:
        return any(c is constant for c in self.constants)

    def has_prefix(self, prefix: str) -> bool:
        at = bisect_left(self.strings, prefix)
        return at < len(self.strings) and self.strings[at].startswith(prefix)

    def has_suffix(self, suffix: str) -> bool:
        backwards = suffix[::-1]
        at = bisect_left(self.reversed_strings, backwards)
        return at < len(self.reversed_strings) and self.reversed_strings[at].startswith(backwards)

    def all_strings_start(self, prefix: str, *, backwards: bool = False) -> bool:
        """Whether every string starts with ``prefix`` (``backwards``: ends with it, reversed): the
        strings that do are one run of the sorted list, so its first and last tell."""
        ordered = self.reversed_strings if backwards else self.strings
        return not ordered or (ordered[0].startswith(prefix) and ordered[-1].startswith(prefix))

    @property
    def others(self) -> bool:
        """Whether an element is neither a string nor a number."""
        return bool(self.constants) or self.containers


@dataclass
class PayloadIndex:
    """One message's long arrays, indexed on first use and shared by every subscription's policy."""

    _arrays: dict[int, tuple[Sequence[object], ArrayIndex]] = field(default_factory=dict)
    _previews: dict[int, tuple[object, str]] = field(default_factory=dict)

    def of(self, elements: Sequence[object]) -> ArrayIndex:
        known = self._arrays.get(id(elements))
        if known is None or known[0] is not elements:
            known = (elements, ArrayIndex(elements))
            self._arrays[id(elements)] = known
        return known[1]

    def preview(self, value: object) -> str:
        """A failed value as a reason quotes it (its first 80 characters of JSON), once per value."""
        known = self._previews.get(id(value))
        if known is None or known[0] is not value:
            known = (value, preview(value, 80))
            self._previews[id(value)] = known
        return known[1]


def preview(value: object, most_chars: int) -> str:
    """``json.dumps(value)[:most_chars]``, without serialising more of a large value than it shows."""
    parts: list[str] = []
    length = 0
    for chunk in _chunks(value):
        parts.append(chunk)
        length += len(chunk)
        if length >= most_chars:
            break
    return "".join(parts)[:most_chars]


def _chunks(value: object) -> Iterator[str]:
    if isinstance(value, list):
        yield "["
        for number, element in enumerate(value):
            if number:
                yield ", "
            yield from _chunks(element)
        yield "]"
    elif isinstance(value, dict):
        yield "{"
        for number, (key, element) in enumerate(value.items()):
            yield (", " if number else "") + json.dumps(key) + ": "
            yield from _chunks(element)
        yield "}"
    else:
        yield json.dumps(value)
