"""The straightforward evaluation of a filter policy, as roomcast first wrote it: every condition
against every candidate, every listed value compared in turn. Slow on long arrays and long lists,
and plainly right: the compiled evaluation (roomcast.filters.matching) must agree with it."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from typing import Any, Final

from roomcast.filters.policy import MAX_REASON_BYTES, Verdict

_MISSING: Final = object()
JsonValue = Any


def evaluate(policy: Mapping[str, object], payload: JsonValue, root: str = "payload") -> Verdict:
    """Whether ``payload`` matches a policy ``check_policy`` accepted; the first failed condition."""
    reason = _object_fails(policy, payload, root)
    if reason is None:
        return Verdict(True)
    return Verdict(False, reason.encode()[:MAX_REASON_BYTES].decode(errors="ignore"))


def _object_fails(policy: Mapping[str, object], value: object, path: str) -> str | None:
    for key, rule in policy.items():
        if key == "$or":
            assert isinstance(rule, list)
            failures = [_object_fails(branch, value, path) for branch in rule]
            if all(failures):
                return " and ".join(f for f in failures if f)
            continue
        where = f"{path}.{key}"
        found = value.get(key, _MISSING) if isinstance(value, dict) else _MISSING
        if isinstance(rule, dict):  # a nested property: its conditions see a missing one as missing
            failure = _object_fails(rule, found, where)
        else:
            assert isinstance(rule, list)
            failure = _leaf_fails(rule, found, where)
        if failure is not None:
            return failure
    return None


def _leaf_fails(conditions: Sequence[object], found: object, where: str) -> str | None:
    candidates = found if isinstance(found, list) else [found]
    if any(_holds(condition, candidate) for condition in conditions for candidate in candidates):
        return None
    if found is _MISSING:
        return f"{where}: missing; it " + _describe(conditions)
    return f"{where}: {json.dumps(found)[:80]} " + _describe(conditions)


def _describe(conditions: Sequence[object]) -> str:
    if len(conditions) == 1 and isinstance(conditions[0], dict) and "numeric" in conditions[0]:
        comparisons = conditions[0]["numeric"]
        return "is not " + " and ".join(
            f"{op} {bound}" for op, bound in zip(comparisons[::2], comparisons[1::2], strict=True)
        )
    return ("does not match " + " or ".join(json.dumps(c) for c in conditions))[:200]


def _holds(condition: object, value: object) -> bool:
    if not isinstance(condition, dict):
        return _equal(condition, value)
    ((operator, argument),) = condition.items()
    if operator == "exists":
        return (value is not _MISSING) is argument
    if value is _MISSING:
        return False
    if operator == "prefix":
        return isinstance(value, str) and value.startswith(argument)
    if operator == "suffix":
        return isinstance(value, str) and value.endswith(argument)
    if operator == "equals-ignore-case":
        return isinstance(value, str) and value.casefold() == str(argument).casefold()
    if operator == "numeric":
        return (
            _is_number(value)
            and all(
                _compare(value, op, bound)  # type: ignore[arg-type]
                for op, bound in zip(argument[::2], argument[1::2], strict=True)
            )
        )
    return _anything_but(argument, value)


def _anything_but(argument: object, value: object) -> bool:
    if isinstance(argument, dict):
        ((kind, text),) = argument.items()
        if not isinstance(value, str):
            return True
        return not (value.startswith(text) if kind == "prefix" else value.endswith(text))
    excluded = argument if isinstance(argument, list) else [argument]
    return value is not None and not any(_equal(e, value) for e in excluded)


def _equal(expected: object, value: object) -> bool:
    """An exact value: strings, booleans and null by identity of type; numbers by value (5 = 5.0)."""
    if _is_number(expected):
        return _is_number(value) and math.isclose(float(value), float(expected), rel_tol=0, abs_tol=1e-6)  # type: ignore[arg-type]
    if isinstance(expected, bool) or expected is None:
        return value is expected
    return isinstance(value, str) and value == expected


def _is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _compare(value: float, operator: str, bound: float) -> bool:
    return {
        "=": value == bound,
        "<": value < bound,
        "<=": value <= bound,
        ">": value > bound,
        ">=": value >= bound,
    }[operator]
