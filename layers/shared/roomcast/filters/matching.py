"""Evaluating a checked filter policy against a payload, with bounded work (ADR 0043).

A policy is compiled once into a tree of ``Leaf`` matchers: a key's exact values become sets,
its prefixes and suffixes tuples (one C-level ``startswith`` each), its numbers sorted lists, each
``anything-but`` list a set. A payload value is matched against a leaf in a few set look-ups,
whatever the number of listed values.

A payload array is each of its elements (a leaf holds when any element does). A long one is indexed
once per message (``PayloadIndex``: its strings sorted and hashed, its numbers sorted), and every
subscription's leaves on it are then answered by look-ups and binary searches: the work for one
message is the arrays' size once, plus each leaf's listed values times log(array size).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Final, TypeGuard

from roomcast.filters.index import ArrayIndex, PayloadIndex
from roomcast.filters.numbers import NumericRanges, any_near, as_float, is_number, near_any, outside_all

MISSING: Final = object()
# Arrays up to this long are matched element by element; longer ones through the message's index.
_SHORT_ARRAY: Final = 16


@dataclass(frozen=True)
class Excluded:
    """One ``anything-but``: listed strings and numbers, or a prefix or suffix."""

    strings: frozenset[str] = frozenset()
    numbers: tuple[float, ...] = ()  # sorted
    prefix: str | None = None
    suffix: str | None = None

    def lets_through(self, value: object) -> bool:
        if self.prefix is not None or self.suffix is not None:
            if not isinstance(value, str):
                return True
            if self.prefix is not None:
                return not value.startswith(self.prefix)
            return not value.endswith(self.suffix or "")
        if value is None:
            return False
        if isinstance(value, str):
            return value not in self.strings
        if is_number(value):
            return not near_any(self.numbers, as_float(value))  # type: ignore[arg-type]
        return True  # true, false, an object, an array: never one of the listed values

    def lets_one_through(self, index: ArrayIndex) -> bool:
        """Whether an element of an indexed array is not excluded."""
        if self.prefix is not None or self.suffix is not None:
            if index.numbers or index.others:
                return True  # not a string: let through (null included, as SNS does)
            if self.prefix is not None:
                return not index.all_strings_start(self.prefix)
            return not index.all_strings_start(str(self.suffix)[::-1], backwards=True)
        if index.containers or any(c is not None for c in index.constants):
            return True  # true, false, an object, an array: never one of the listed values
        if len(index.string_set) > len(self.strings) or any(s not in self.strings for s in index.string_set):
            return True
        return outside_all(index.numbers, self.numbers)


@dataclass
class Leaf:
    """A key's conditions, compiled: it holds when one condition holds for one candidate."""

    strings: set[str] = field(default_factory=set)
    numbers: list[float] = field(default_factory=list)
    constants: list[object] = field(default_factory=list)  # true, false, null
    prefixes: list[str] = field(default_factory=list)
    suffixes: list[str] = field(default_factory=list)
    folded: set[str] = field(default_factory=set)
    ranges: list[tuple[tuple[str, float], ...]] = field(default_factory=list)
    numeric: NumericRanges = field(default_factory=lambda: NumericRanges(()))
    excluded: list[Excluded] = field(default_factory=list)
    exists: set[bool] = field(default_factory=set)

    def holds_for(self, value: object) -> bool:
        """Whether one candidate (a value, or MISSING) meets a condition."""
        if value is MISSING:
            return False in self.exists
        if True in self.exists:
            return True
        if any(e.lets_through(value) for e in self.excluded):
            return True
        if isinstance(value, str):
            return (
                value in self.strings
                or (bool(self.prefixes) and value.startswith(tuple(self.prefixes)))
                or (bool(self.suffixes) and value.endswith(tuple(self.suffixes)))
                or (bool(self.folded) and value.casefold() in self.folded)
            )
        if is_number(value):
            return near_any(self.numbers, as_float(value)) or self.numeric.contains(value)  # type: ignore[arg-type]
        return any(value is constant for constant in self.constants)

    def holds_in(self, index: ArrayIndex) -> bool:
        """Whether the condition holds for one element of an indexed array."""
        if index.size and True in self.exists:
            return True
        if any(index.constant(c) for c in self.constants):
            return True
        if index.string_set and self._holds_for_a_string(index):
            return True
        if index.numbers and (any_near(self.numbers, index.numbers) or self.numeric.any_of(index.numbers)):
            return True
        return any(e.lets_one_through(index) for e in self.excluded)

    def _holds_for_a_string(self, index: ArrayIndex) -> bool:
        if not self.strings.isdisjoint(index.string_set) or not self.folded.isdisjoint(index.folded):
            return True
        return any(index.has_prefix(p) for p in self.prefixes) or any(
            index.has_suffix(s) for s in self.suffixes
        )


def leaf_holds(leaf: Leaf, found: object, index: PayloadIndex) -> bool:
    """Whether a key's value (``found``: MISSING when absent) meets the leaf; an array by its elements."""
    if not isinstance(found, list):
        return leaf.holds_for(found)
    if len(found) <= _SHORT_ARRAY:
        return any(leaf.holds_for(element) for element in found)
    return leaf.holds_in(index.of(found))


def compile_leaf(conditions: Sequence[object]) -> Leaf:
    """The leaf of a key's conditions (as ``check_policy`` accepted them)."""
    leaf = Leaf()
    for condition in conditions:
        if isinstance(condition, str):
            leaf.strings.add(condition)
        elif is_number(condition):
            leaf.numbers.append(float(condition))  # type: ignore[arg-type]
        elif not isinstance(condition, Mapping):
            leaf.constants.append(condition)  # true, false, null
        else:
            ((operator, argument),) = condition.items()
            _add_operator(leaf, operator, argument)
    leaf.numbers.sort()
    leaf.numeric = NumericRanges(leaf.ranges)
    return leaf


def _add_operator(leaf: Leaf, operator: str, argument: object) -> None:
    if operator == "prefix":
        leaf.prefixes.append(str(argument))
    elif operator == "suffix":
        leaf.suffixes.append(str(argument))
    elif operator == "equals-ignore-case":
        leaf.folded.add(str(argument).casefold())
    elif operator == "exists":
        leaf.exists.add(bool(argument))
    elif operator == "numeric":
        assert isinstance(argument, list)
        leaf.ranges.append(tuple(zip(argument[::2], argument[1::2], strict=True)))
    elif isinstance(argument, Mapping):  # anything-but {"prefix": …} or {"suffix": …}
        ((kind, text),) = argument.items()
        leaf.excluded.append(Excluded(prefix=text) if kind == "prefix" else Excluded(suffix=text))
    else:
        listed = argument if isinstance(argument, list) else [argument]
        leaf.excluded.append(
            Excluded(
                strings=frozenset(v for v in listed if isinstance(v, str)),
                numbers=tuple(
                    sorted(float(v) for v in listed if isinstance(v, (int, float)) and is_number(v))
                ),
            )
        )


def _listed_number(value: object) -> TypeGuard[float]:
    return is_number(value)
