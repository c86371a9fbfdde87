"""Payload filters (roomcast.filters.policy): every operator of SNS's filter-policy language
on a message body, its limits and its validation, and the first failed condition named."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings, strategies as st
from jsonschema_rs import Draft202012Validator
from pydantic import TypeAdapter

from roomcast.filters.policy import InvalidFilterPolicy, check_policy, evaluate
from roomcast.filters.schema import FilterPolicy

ORDER: dict[str, Any] = {
    "customer": {"tier": "gold", "country": "DE", "id": "cus_123"},
    "amount": 150,
    "currency": "EUR",
    "tags": ["rush", "gift"],
    "note": None,
    "paid": True,
}


def matches(policy: dict[str, Any], payload: Any = ORDER) -> bool:
    check_policy(policy)
    return evaluate(policy, payload).matched


VALID_POLICIES: list[tuple[dict[str, Any], bool]] = [
    ({"currency": ["EUR"]}, True),
    ({"currency": ["USD", "EUR"]}, True),  # any condition of a key
    ({"currency": ["USD"]}, False),
    ({"amount": [150]}, True),
    ({"amount": [150.0]}, True),  # numbers by value
    ({"amount": ["150"]}, False),  # a string is not a number
    ({"paid": [True]}, True),
    ({"paid": ["true"]}, False),
    ({"note": [None]}, True),
    ({"tags": ["gift"]}, True),  # an array matches when any element does
    ({"customer": {"tier": ["gold"]}}, True),  # nested keys
    ({"customer": {"tier": ["silver"]}}, False),
    ({"customer": {"id": [{"prefix": "cus_"}]}}, True),
    ({"customer": {"id": [{"suffix": "_123"}]}}, True),
    ({"customer": {"id": [{"suffix": "_999"}]}}, False),
    ({"customer": {"country": [{"equals-ignore-case": "de"}]}}, True),
    ({"currency": [{"anything-but": "USD"}]}, True),
    ({"currency": [{"anything-but": ["USD", "EUR"]}]}, False),
    ({"currency": [{"anything-but": {"prefix": "E"}}]}, False),
    ({"currency": [{"anything-but": {"suffix": "D"}}]}, True),
    ({"amount": [{"anything-but": [100, 200]}]}, True),
    ({"missing": [{"anything-but": "x"}]}, False),  # anything-but needs the key
    ({"amount": [{"numeric": [">=", 100]}]}, True),
    ({"amount": [{"numeric": ["<", 100]}]}, False),
    ({"amount": [{"numeric": ["=", 150]}]}, True),
    ({"amount": [{"numeric": [">", 100, "<=", 150]}]}, True),
    ({"amount": [{"numeric": [">", 150, "<=", 200]}]}, False),
    ({"currency": [{"numeric": [">", 0]}]}, False),  # numeric needs a number
    ({"note": [{"exists": True}]}, True),  # null is there
    ({"missing": [{"exists": False}]}, True),
    ({"missing": [{"exists": True}]}, False),
    ({"customer": {"vip": [{"exists": False}]}}, True),
    ({"nested_missing": {"a": [{"exists": False}]}}, True),
    ({"currency": ["EUR"], "amount": [{"numeric": [">", 1000]}]}, False),  # every key
    ({"$or": [{"currency": ["USD"]}, {"amount": [{"numeric": [">", 100]}]}]}, True),
    ({"$or": [{"currency": ["USD"]}, {"amount": [{"numeric": [">", 1000]}]}]}, False),
    ({"customer": {"$or": [{"tier": ["gold"]}, {"country": ["FR"]}]}}, True),
]


@pytest.mark.parametrize(("policy", "expected"), VALID_POLICIES)
def test_each_operator_matches_as_sns_documents(policy: dict[str, Any], expected: bool) -> None:
    assert matches(policy) is expected


@pytest.mark.parametrize(
    ("policy", "reason"),
    [
        ({"amount": [{"numeric": [">=", 200]}]}, "payload.amount: 150 is not >= 200"),
        ({"customer": {"tier": ["silver"]}}, 'payload.customer.tier: "gold" does not match "silver"'),
        ({"coupon": ["X"]}, 'payload.coupon: missing; it does not match "X"'),
        ({"currency": ["EUR"], "paid": [False]}, "payload.paid: true does not match false"),
    ],
)
def test_a_miss_names_the_first_condition_that_failed(policy: dict[str, Any], reason: str) -> None:
    # When
    check_policy(policy)
    verdict = evaluate(policy, ORDER)

    # Then
    assert (verdict.matched, verdict.reason) == (False, reason)


INVALID_POLICIES: list[tuple[Any, str, str]] = [
    ([], "", "object"),
    ({}, "", "object"),
    ({f"k{n}": ["v"] for n in range(6)}, "", "at most 5 keys"),
    ({"a": "x"}, ".a", "array of conditions"),
    ({"a": []}, ".a", "empty array"),
    ({"a": {}}, ".a", "empty object"),
    ({"a": [{"starts": "x"}]}, ".a[0]", "unknown operator"),
    ({"a": [{"prefix": "x", "suffix": "y"}]}, ".a[0]", "one operator"),
    ({"a": [{"prefix": ""}]}, ".a[0].prefix", "non-empty string"),
    ({"a": [{"exists": "yes"}]}, ".a[0].exists", "true or false"),
    ({"a": [{"numeric": [">", "5"]}]}, ".a[0].numeric", "finite number"),
    ({"a": [{"numeric": ["~", 5]}]}, ".a[0].numeric", "unknown comparison"),
    ({"a": [{"numeric": [">", 5, "<", 1]}]}, ".a[0].numeric", "below its upper bound"),
    ({"a": [{"numeric": ["<", 5, ">", 1]}]}, ".a[0].numeric", "lower bound"),
    ({"a": [{"numeric": [">"]}]}, ".a[0].numeric", "[operator, number]"),
    ({"a": [{"anything-but": {"contains": "x"}}]}, ".a[0].anything-but", "prefix"),
    ({"a": [{"anything-but": []}]}, ".a[0].anything-but", "non-empty list"),
    ({"a": [float("inf")]}, ".a[0]", "finite"),
    ({"$or": [{"a": ["x"]}]}, ".$or", "at least two"),
    ({"$or": [{"a": ["x"]}, "b"]}, ".$or[1]", "non-empty object"),
    ({"a": [f"v{n}" for n in range(151)]}, "", "too complex"),
    ({"a": [f"v{n}" for n in range(13)], "b": [f"v{n}" for n in range(12)]}, "", "156 combinations"),
    ({"a": ["x" * (257 * 1024)]}, "", "256 KiB"),
]


@pytest.mark.parametrize(("policy", "path", "words"), INVALID_POLICIES)
def test_an_invalid_or_too_complex_policy_is_refused_naming_the_rule_and_where(
    policy: Any, path: str, words: str
) -> None:
    with pytest.raises(InvalidFilterPolicy) as refused:
        check_policy(policy)
    assert refused.value.path == path
    assert words in refused.value.rule


def test_nesting_counts_towards_the_combinations_as_sns_counts_them() -> None:
    # SNS's own example: four values three levels down, three values two levels down: 3x4x2x3 = 72
    policy = {"a": {"b": {"c": ["1", "2", "3", "4"]}}, "d": {"e": ["1", "2", "3"]}}
    check_policy(policy)
    with pytest.raises(InvalidFilterPolicy, match="432 combinations"):  # 72 x 3 x 2
        check_policy({**policy, "f": {"g": ["1", "2", "3"]}} | {"h": ["x"]})


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-1000, 1000) | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from("abcd"), inner, max_size=3),
    max_leaves=10,
)
conditions = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-1000, 1000),
    st.text(min_size=1, max_size=3),
    st.builds(lambda p: {"prefix": p}, st.text(min_size=1, max_size=2)),
    st.builds(lambda p: {"anything-but": p}, st.text(min_size=1, max_size=2) | st.integers(-5, 5)),
    st.builds(lambda n: {"numeric": [">=", n]}, st.integers(-1000, 1000)),
    st.builds(lambda b: {"exists": b}, st.booleans()),
)
policies = st.dictionaries(st.sampled_from("abcd"), st.lists(conditions, min_size=1, max_size=3), min_size=1)
# Small enough to nest one level down under $or within SNS's 150 combinations.
small_policies = st.dictionaries(
    st.sampled_from("abcd"), st.lists(conditions, min_size=1, max_size=2), min_size=1, max_size=2
)


@settings(max_examples=300, deadline=None)
@given(policy=policies, payload=json_values)
def test_any_valid_policy_evaluates_any_json_payload_and_a_miss_says_why(
    policy: dict[str, Any], payload: Any
) -> None:
    # Given
    check_policy(policy)

    # When
    verdict = evaluate(policy, payload)

    # Then: a match has no reason; a miss names a key of the policy
    if verdict.matched:
        assert verdict.reason is None
    else:
        assert verdict.reason is not None
        assert any(verdict.reason.startswith(f"payload.{key}:") for key in policy)


@settings(max_examples=200, deadline=None)
@given(policy=small_policies, payload=st.dictionaries(st.sampled_from("abcd"), json_values, max_size=4))
def test_or_of_two_policies_matches_exactly_when_one_of_them_does(
    policy: dict[str, Any], payload: Any
) -> None:
    other = {"z": [{"exists": True}]}
    either = {"$or": [policy, other]}
    check_policy(either)
    assert evaluate(either, payload).matched == (evaluate(policy, payload).matched or "z" in payload)


# -- the shape the OpenAPI document states (roomcast.filters.schema) ---------------------

SHAPE = Draft202012Validator(TypeAdapter(FilterPolicy).json_schema())


# Infinity is not JSON: it never reaches the API.
@pytest.mark.parametrize(("policy", "path", "words"), [c for c in INVALID_POLICIES if c[2] != "finite"])
def test_the_documented_schema_refuses_exactly_the_shape_errors(policy: Any, path: str, words: str) -> None:
    # Given: what check_policy says of it
    with pytest.raises(InvalidFilterPolicy) as refused:
        check_policy(policy)

    # Then: a shape error is the schema's too; the rules no JSON Schema states are not
    assert SHAPE.is_valid(policy) is (refused.value.kind != "invalid_filter_policy")


@pytest.mark.parametrize("policy", [case[0] for case in VALID_POLICIES])
def test_the_documented_schema_accepts_every_valid_policy(policy: Any) -> None:
    check_policy(policy)
    assert SHAPE.is_valid(policy)
