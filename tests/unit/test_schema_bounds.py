"""Schemas with bounded work (ADR 0043): the shapes the hostile test found are refused when saved
or checked within the budget, and any schema a tenant can save, checked against the costliest
payloads the API takes, stays within it. Time is this thread's CPU time with a tenfold margin over
the ADR's 50 ms (the figures themselves are `make bench`'s): what these tests catch is work that
grows with the payload's depth or with a schema's combinations, which no margin absorbs."""

from __future__ import annotations

import gc
import json
import time
from collections.abc import Callable
from functools import partial
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings, strategies as st, target

from roomcast.event_types.model import (
    InvalidSchema,
    SchemaCheck,
    check_payload,
    checked_schema,
    compile_schema,
)
from roomcast.platform import limits
from roomcast.platform.payloads import payload_size_bytes

MARGIN_MS = int(__import__("os").environ.get("MARGIN_MS", 10 * 50))


def cpu_ms(work: Callable[[], object]) -> float:
    """The least CPU time of this thread over two runs of ``work``, the collector held off (a
    collection of the test's own large payloads is not the check's work)."""
    gc.disable()
    try:
        spent = []
        for _ in range(2):
            start = time.thread_time()
            work()
            spent.append((time.thread_time() - start) * 1000)
    finally:
        gc.enable()
    return min(spent)


def nested(depth: int, leaf: Any = 1) -> Any:
    for _ in range(depth):
        leaf = [leaf]
    return leaf


def refusal(schema: Any) -> str:
    with pytest.raises(InvalidSchema) as refused:
        checked_schema("1", schema)
    return refused.value.problem


def check(schema: Any, payload: Any) -> tuple[SchemaCheck, float]:
    compiled = compile_schema(checked_schema("1", schema).text)
    found: list[SchemaCheck] = []
    spent = cpu_ms(lambda: found.append(check_payload(compiled, payload)))
    return found[0], spent


def anyof_chain(depth: int) -> dict[str, Any]:
    """a0 → two references to a1 → … → a string: 2^depth ways down (the hostile test's 1.3 KB)."""
    defs: dict[str, Any] = {
        f"a{n}": {"anyOf": [{"$ref": f"#/$defs/a{n + 1}"}, {"$ref": f"#/$defs/a{n + 1}"}]}
        for n in range(depth)
    }
    defs[f"a{depth}"] = {"type": "string"}
    return {"$defs": defs, "$ref": "#/$defs/a0"}


EXPONENTIAL = {
    "$defs": {
        "n": {
            "anyOf": [
                {"type": "array", "items": {"$ref": "#/$defs/n"}},
                {"type": "array", "items": {"$ref": "#/$defs/n"}, "minItems": 1},
            ]
        }
    },
    "$ref": "#/$defs/n",
}


def test_the_schema_whose_two_branches_both_recurse_is_refused_when_saved() -> None:
    assert len(json.dumps(EXPONENTIAL, separators=(",", ":"))) == 151  # the hostile test's schema
    assert "too costly to check" in refusal(EXPONENTIAL)


@pytest.mark.parametrize("depth", [16, 20])
def test_a_chain_of_anyof_references_that_doubles_at_each_level_is_refused(depth: int) -> None:
    assert "too costly to check" in refusal(anyof_chain(depth))


def test_a_shorter_chain_is_saved_and_a_batch_of_its_payloads_is_checked_within_budget() -> None:
    # Given: depth 12, which the hostile test published 100 times in one batch (10.3 s)
    compiled = compile_schema(checked_schema("1", anyof_chain(12)).text)

    # When
    spent = cpu_ms(lambda: [check_payload(compiled, 1) for _ in range(limits.MAX_PUBLISH_BATCH_MESSAGES)])

    # Then
    assert spent < MARGIN_MS
    assert not check_payload(compiled, 1).valid


def test_a_pattern_with_a_backreference_is_refused_when_saved() -> None:
    assert 'is not a "regex"' in refusal({"type": "string", "pattern": "^(a|a)*\\1b$"})
    assert 'is not a "regex"' in refusal({"patternProperties": {"(?=a)b": {}}})


def test_a_large_enum_of_objects_is_checked_on_a_short_array_and_not_on_a_long_one() -> None:
    # Given: the hostile test's 700 objects (1.6 s against 700 items)
    schema = {"type": "array", "items": {"enum": [{"id": n, "name": f"n{n}"} for n in range(700)]}}

    # When
    short, short_spent = check(schema, [{"id": -1}] * 70)
    long, long_spent = check(schema, [{"id": -1}] * 700)

    # Then: the short one refused with its first error, the long one as too costly, both in budget
    assert short_spent < MARGIN_MS
    assert long_spent < MARGIN_MS
    assert (short.valid, short.checked) == (False, True)
    assert short.problems
    assert (long.valid, long.checked) == (False, False)


def test_a_check_that_would_cost_past_the_budget_is_not_made() -> None:
    # Given: as many objects as 32 KiB holds (5,000 took 17.5 s against as many items)
    schema = {"type": "array", "items": {"enum": [{"i": n} for n in range(3_000)]}}

    # When
    verdict, spent = check(schema, [{"i": n} for n in range(3_000)])

    # Then
    assert (verdict.checked, verdict.valid) == (False, False)
    assert verdict.cost > limits.SCHEMA_CHECK_BUDGET
    assert spent < MARGIN_MS


@pytest.mark.parametrize(
    ("schema", "words"),
    [
        ({"$ref": "https://json-schema.org/draft/2020-12/schema"}, "outside the schema"),
        ({"$dynamicRef": "meta.json#meta"}, "outside the schema"),
        ({"$id": "https://json-schema.org/draft/2020-12/schema", "$ref": "#/$defs/x"}, "json-schema.org"),
        ({"items": nested(600, {})}, "nests deeper than 64 levels"),
        ({"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}, "$ref": "#/$defs/a"}, "loop"),
    ],
)
def test_what_roomcast_cannot_bound_or_would_fetch_is_refused_naming_why(schema: Any, words: str) -> None:
    assert words in refusal(schema)


def test_a_tree_of_any_depth_is_saved_and_its_deepest_payload_checked_within_budget() -> None:
    # Given: the usual recursive schema (one branch recurses), and the deepest payload the API takes
    tree = {"anyOf": [{"type": "string"}, {"type": "array", "items": {"$ref": "#"}}]}

    # When
    verdict, spent = check(tree, nested(250))

    # Then: its error found, in budget
    assert spent < MARGIN_MS
    assert verdict.problems


# -- any schema a tenant can save, against the costliest payloads ---------------------------------

KEYS = st.sampled_from(["a", "b", "c"])
numbers = st.sampled_from([0, 1, -1, 0.5, 2.75, 1e9])
scalars = st.one_of(st.none(), st.booleans(), numbers, st.sampled_from(["", "a", "ab1", "Z9"]))
references = st.sampled_from(["#", "#/$defs/d0", "#/$defs/d1", "#/$defs/d2"])
assertions = st.fixed_dictionaries(
    {},
    optional={
        "type": st.sampled_from(["array", "object", "string", "number", "integer", "null"]),
        "minimum": numbers,
        "multipleOf": st.sampled_from([0.5, 3, 0.01]),
        "enum": st.lists(scalars | st.dictionaries(KEYS, scalars, max_size=2), min_size=1, max_size=40),
        "const": scalars,
        "pattern": st.sampled_from(["^a", "[0-9]+$", "^(a|b)*c?$", "^[a-z]{1,8}[0-9]*$"]),
        "uniqueItems": st.booleans(),
        "required": st.lists(KEYS, max_size=3, unique=True),
        "minItems": st.integers(0, 3),
    },
)


def applicators(inner: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    listed = st.lists(inner, min_size=1, max_size=4)
    return st.one_of(
        st.builds(lambda a, s: {**a, "anyOf": s}, assertions, listed),
        st.builds(lambda a, s: {**a, "oneOf": s}, assertions, listed),
        st.builds(lambda a, s: {**a, "allOf": s}, assertions, listed),
        st.builds(lambda s: {"not": s}, inner),
        st.builds(lambda i, t, e: {"if": i, "then": t, "else": e}, inner, inner, inner),
        st.builds(lambda a, s: {**a, "items": s}, assertions, inner),
        st.builds(lambda s, r: {"prefixItems": s, "items": r}, listed, inner),
        st.builds(lambda s: {"properties": s}, st.dictionaries(KEYS, inner, min_size=1)),
        st.builds(lambda s, r: {"patternProperties": {"^a": s}, "additionalProperties": r}, inner, inner),
        st.builds(lambda s: {"contains": s}, inner),
        st.builds(lambda s: {"unevaluatedItems": s, "prefixItems": [s]}, inner),
        st.builds(lambda a, r: {**a, "$ref": r}, assertions, references),
    )


subschemas = st.recursive(
    assertions | st.builds(lambda r: {"$ref": r}, references), applicators, max_leaves=12
)
schemas = st.builds(
    lambda root, d0, d1, d2: {**root, "$defs": {"d0": d0, "d1": d1, "d2": d2}},
    subschemas,
    subschemas,
    subschemas,
    subschemas,
)
shapes = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, min_size=1, max_size=3) | st.dictionaries(KEYS, inner, min_size=1, max_size=3)
    ),
    max_leaves=8,
)


def widened(shape: Any) -> Any:
    """As many copies of ``shape`` as fit in one payload of the largest size."""
    each = payload_size_bytes(shape) + 1
    return [shape] * max(1, (limits.MAX_PAYLOAD_BYTES - 10) // each)


def deepened(shape: Any, depth: int) -> Any:
    for level in range(depth):
        shape = [shape] if level % 2 else {"a": shape}
    return shape


@settings(
    max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)
@given(schema=schemas, shape=shapes, depth=st.integers(0, 120))
def test_any_schema_that_can_be_saved_checks_the_costliest_payloads_within_budget(
    schema: dict[str, Any], shape: Any, depth: int
) -> None:
    # Given: a schema a tenant saved (one refused is not what this test is about)
    try:
        saved = checked_schema("1", schema)
    except InvalidSchema as refused:
        event(f"refused: {refused.problem.split(':')[0][:40]}")
        return
    event("saved")
    compiled = compile_schema(saved.text, cost=saved.cost)

    most = 0.0
    for payload in (widened(shape), deepened(shape, depth), widened(deepened(shape, min(depth, 6)))):
        if payload_size_bytes(payload) > limits.MAX_PAYLOAD_BYTES:
            continue

        # When
        spent = cpu_ms(partial(check_payload, compiled, payload))

        # Then
        assert spent < MARGIN_MS, (schema, shape, depth)
        most = max(most, spent)
    target(most, label="CPU ms of the costliest check")  # the search leans towards what costs most
