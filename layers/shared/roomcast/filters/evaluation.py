"""Evaluating a checked filter policy (roomcast.filters.policy) against a payload: its keys in
order, each nested policy, ``$or`` or key's conditions (``roomcast.filters.matching``), and the
first condition that failed, quoted with the value it failed on."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Final

from roomcast.filters.index import PayloadIndex, preview
from roomcast.filters.matching import MISSING, Leaf, compile_leaf, leaf_holds
from roomcast.platform import JsonValue

MAX_REASON_BYTES: Final = 300  # UTF-8; a reason is kept on the message, once per subscription it missed


@dataclass(frozen=True)
class Verdict:
    """Whether a payload matched, and if not, the first condition that failed (``payload.amount: 50
    is not >= 100``)."""

    matched: bool
    reason: str | None = None


@dataclass(frozen=True)
class _Conditions:
    """A key's conditions: its matcher, and the conditions as written (for the reason)."""

    leaf: Leaf
    written: Sequence[object]

    @cached_property
    def described(self) -> str:
        return _describe(self.written)


@dataclass(frozen=True)
class _AnyOf:
    """``$or``: the branches, one of which must hold."""

    branches: tuple[Compiled, ...]


# A policy's keys in order, each a nested policy, its conditions or (``$or``) branches.
type Compiled = list[tuple[str, Compiled | _Conditions | _AnyOf]]


def compile_policy(policy: Mapping[str, object]) -> Compiled:
    """A checked policy as matchers, in its key order (the order conditions are reported in)."""
    compiled: Compiled = []
    for key, rule in policy.items():
        if key == "$or":
            assert isinstance(rule, list)
            compiled.append((key, _AnyOf(tuple(compile_policy(branch) for branch in rule))))
        elif isinstance(rule, dict):
            compiled.append((key, compile_policy(rule)))
        else:
            assert isinstance(rule, list)
            compiled.append((key, _Conditions(compile_leaf(rule), rule)))
    return compiled


def evaluate(
    policy: Mapping[str, object] | Compiled,
    payload: JsonValue,
    root: str = "payload",
    index: PayloadIndex | None = None,
) -> Verdict:
    """Whether ``payload`` matches a policy ``check_policy`` accepted (or its compiled form); the
    first failed condition. ``index``: the message's, shared by every policy evaluated on it."""
    compiled = compile_policy(policy) if isinstance(policy, Mapping) else policy
    reason = _object_fails(compiled, payload, root, index or PayloadIndex())
    if reason is None:
        return Verdict(True)
    return Verdict(False, reason.encode()[:MAX_REASON_BYTES].decode(errors="ignore"))


def _object_fails(policy: Compiled, value: object, path: str, index: PayloadIndex) -> str | None:
    for key, rule in policy:
        if isinstance(rule, _AnyOf):
            failures = [_object_fails(branch, value, path, index) for branch in rule.branches]
            if all(failures):
                return " and ".join(f for f in failures if f)
            continue
        where = f"{path}.{key}"
        found = value.get(key, MISSING) if isinstance(value, dict) else MISSING
        if isinstance(rule, list):  # a nested property: its conditions see a missing one as missing
            failure = _object_fails(rule, found, where, index)
        elif leaf_holds(rule.leaf, found, index):
            failure = None
        else:
            failure = _leaf_failure(rule, found, where, index)
        if failure is not None:
            return failure
    return None


def _leaf_failure(conditions: _Conditions, found: object, where: str, index: PayloadIndex) -> str:
    if found is MISSING:
        return f"{where}: missing; it " + conditions.described
    return f"{where}: {index.preview(found)} " + conditions.described


def _describe(conditions: Sequence[object]) -> str:
    if len(conditions) == 1 and isinstance(conditions[0], dict) and "numeric" in conditions[0]:
        comparisons = conditions[0]["numeric"]
        return "is not " + " and ".join(
            f"{op} {bound}" for op, bound in zip(comparisons[::2], comparisons[1::2], strict=True)
        )
    described: list[str] = []
    length = 0
    for condition in conditions:  # at most 200 characters: a long list is not serialised whole
        described.append(preview(condition, 200))
        length += len(described[-1]) + 4
        if length > 200:
            break
    return ("does not match " + " or ".join(described))[:200]
