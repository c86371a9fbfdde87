"""Payload filters (issue 26): the SNS filter-policy language with message-body scope, checked
when a policy is saved and evaluated against a message's payload, saying which condition failed.

The language, as SNS documents it (docs.aws.amazon.com/sns/latest/dg/sns-message-filtering.html):

- a policy is an object; a key names a payload property, its value is either a nested object (a
  nested property) or an array of conditions, of which at least one must hold; every key must
  hold; ``"$or": [policy, ...]`` holds when one of its policies does;
- a condition is an exact value (string, number, ``true``/``false``, ``null``) or an object with one
  operator: ``prefix``, ``suffix``, ``equals-ignore-case`` (strings), ``anything-but`` (a value, a
  list of values, or ``{"prefix": …}``/``{"suffix": …}``), ``numeric`` (``["=", 5]``,
  ``[">", 0, "<=", 100]``), ``exists`` (``true``/``false``);
- a payload property that is an array holds when any of its elements does;
- limits: at most 5 keys at the top level, at most 150 combinations of values (each array's count
  of values times its nesting depth, multiplied together, as SNS counts them; every value an
  ``anything-but`` lists counts as one, ADR 0043), 256 KiB of JSON.

Evaluation (``roomcast.filters.matching``) looks values up in sets and sorted lists, so its
work is the payload's long arrays once per message plus each listed value times log(array size).

Not for now: ``cidr`` (IP addresses, for message attributes in SNS).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Final

from roomcast.filters.evaluation import MAX_REASON_BYTES, Compiled, Verdict, compile_policy, evaluate
from roomcast.filters.index import PayloadIndex
from roomcast.platform import JsonValue

__all__ = ["MAX_REASON_BYTES", "FilterPolicy", "InvalidFilterPolicy", "Verdict", "check_policy", "evaluate"]

MAX_KEYS: Final = 5
MAX_COMBINATIONS: Final = 150
MAX_POLICY_BYTES: Final = 256 * 1024
_OPERATORS: Final = ("prefix", "suffix", "equals-ignore-case", "anything-but", "numeric", "exists")
_COMPARISONS: Final = ("=", "<", "<=", ">", ">=")


class InvalidFilterPolicy(ValueError):
    """A policy SNS would refuse: ``rule`` says which rule it breaks, ``path`` where. ``kind``: a
    rule of the policy's shape (``invalid_filter_policy``, which the API's JSON Schema also states),
    or one no JSON Schema can state (``filter_policy_too_complex``, ``…_too_large``, ``…_empty_range``)."""

    def __init__(self, path: str, rule: str, kind: str = "invalid_filter_policy") -> None:
        super().__init__(f"filterPolicy{path}: {rule}")
        self.path = path
        self.rule = rule
        self.kind = kind


@dataclass(frozen=True)
class FilterPolicy:
    """A subscription's checked policy, kept as the JSON text it was saved as (its key order is
    the order conditions are evaluated and reported in). Make one with ``FilterPolicy.of``."""

    text: str

    @classmethod
    def of(cls, policy: object) -> FilterPolicy:
        """Raise InvalidFilterPolicy unless ``policy`` is valid and small enough."""
        check_policy(policy)
        return cls(json.dumps(policy, separators=(",", ":"), ensure_ascii=False))

    @cached_property
    def rules(self) -> dict[str, object]:
        rules: dict[str, object] = json.loads(self.text)
        return rules

    @cached_property
    def matchers(self) -> Compiled:
        return compile_policy(self.rules)

    def evaluate(self, payload: JsonValue, index: PayloadIndex | None = None) -> Verdict:
        """``index``: the message's, when several policies are evaluated on one payload."""
        return evaluate(self.matchers, payload, index=index)


def check_policy(policy: object) -> None:
    """Raise InvalidFilterPolicy unless ``policy`` is a valid, small enough filter policy."""
    if not isinstance(policy, dict) or not policy:
        raise InvalidFilterPolicy("", "must be a non-empty object")
    if len(json.dumps(policy)) > MAX_POLICY_BYTES:
        raise InvalidFilterPolicy(
            "", f"must be at most {MAX_POLICY_BYTES // 1024} KiB of JSON", "filter_policy_too_large"
        )
    if len(policy) > MAX_KEYS:
        raise InvalidFilterPolicy("", f"may have at most {MAX_KEYS} keys (it has {len(policy)})")
    combinations = _check_object(policy, "", depth=1)
    if combinations > MAX_COMBINATIONS:
        raise InvalidFilterPolicy(
            "",
            f"is too complex: {combinations} combinations of values (at most {MAX_COMBINATIONS})",
            "filter_policy_too_complex",
        )


def _check_object(policy: Mapping[str, object], path: str, depth: int) -> int:
    combinations = 1
    for key, value in policy.items():
        where = f"{path}.{key}"
        if key == "$or":
            if not isinstance(value, list) or len(value) < 2:
                raise InvalidFilterPolicy(where, "must be an array of at least two policies")
            combinations *= len(value) * depth
            for index, branch in enumerate(value):
                if not isinstance(branch, dict) or not branch:
                    raise InvalidFilterPolicy(f"{where}[{index}]", "must be a non-empty object")
                combinations *= _check_object(branch, f"{where}[{index}]", depth + 1)
        elif isinstance(value, dict):
            if not value:
                raise InvalidFilterPolicy(where, "must not be an empty object")
            combinations *= _check_object(value, where, depth + 1)
        elif isinstance(value, list):
            if not value:
                raise InvalidFilterPolicy(where, "must not be an empty array")
            for index, condition in enumerate(value):
                _check_condition(condition, f"{where}[{index}]")
            combinations *= sum(_values_listed(condition) for condition in value) * depth
        else:
            raise InvalidFilterPolicy(
                where, "must be an object (a nested property) or an array of conditions"
            )
    return combinations


def _values_listed(condition: object) -> int:
    """What a condition counts towards the combinations: one, or each value ``anything-but`` lists."""
    if isinstance(condition, dict) and isinstance(condition.get("anything-but"), list):
        return len(condition["anything-but"])
    return 1


def _check_condition(condition: object, where: str) -> None:
    if condition is None or isinstance(condition, (str, bool)):
        return
    if isinstance(condition, (int, float)):
        if not math.isfinite(condition):
            raise InvalidFilterPolicy(where, "a number must be finite")
        return
    if not isinstance(condition, dict) or len(condition) != 1:
        raise InvalidFilterPolicy(where, "must be a value or an object with one operator")
    ((operator, argument),) = condition.items()
    if operator not in _OPERATORS:
        raise InvalidFilterPolicy(where, f"unknown operator {operator!r} (one of {', '.join(_OPERATORS)})")
    at = f"{where}.{operator}"
    if operator in ("prefix", "suffix", "equals-ignore-case"):
        if not isinstance(argument, str) or not argument:
            raise InvalidFilterPolicy(at, "must be a non-empty string")
    elif operator == "exists":
        if not isinstance(argument, bool):
            raise InvalidFilterPolicy(at, "must be true or false")
    elif operator == "numeric":
        _check_numeric(argument, at)
    else:
        _check_anything_but(argument, at)


def _check_numeric(argument: object, at: str) -> None:
    if not isinstance(argument, list) or len(argument) not in (2, 4):
        raise InvalidFilterPolicy(at, 'must be [operator, number] or a range [">", 0, "<=", 100]')
    pairs = list(zip(argument[::2], argument[1::2], strict=True))
    for operator, number in pairs:
        if operator not in _COMPARISONS:
            raise InvalidFilterPolicy(
                at, f"unknown comparison {operator!r} (one of {', '.join(_COMPARISONS)})"
            )
        if isinstance(number, bool) or not isinstance(number, (int, float)) or not math.isfinite(number):
            raise InvalidFilterPolicy(at, f"{operator} needs a finite number")
    if len(pairs) == 2:
        (low_op, low), (high_op, high) = pairs
        if low_op not in (">", ">=") or high_op not in ("<", "<="):
            raise InvalidFilterPolicy(
                at, 'a range is a lower bound (">" or ">=") then an upper one ("<" or "<=")'
            )
        if not low < high:
            raise InvalidFilterPolicy(
                at, "a range's lower bound must be below its upper bound", "filter_policy_empty_range"
            )


def _check_anything_but(argument: object, at: str) -> None:
    if isinstance(argument, dict):
        if len(argument) != 1 or next(iter(argument)) not in ("prefix", "suffix"):
            raise InvalidFilterPolicy(at, 'an object must be {"prefix": …} or {"suffix": …}')
        (text,) = argument.values()
        if not isinstance(text, str) or not text:
            raise InvalidFilterPolicy(at, "its prefix or suffix must be a non-empty string")
        return
    values = argument if isinstance(argument, list) else [argument]
    if not values or not all(isinstance(v, (str, int, float)) and not isinstance(v, bool) for v in values):
        raise InvalidFilterPolicy(at, "must be a string, a number, or a non-empty list of them")
