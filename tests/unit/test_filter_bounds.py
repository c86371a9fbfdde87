"""Filter policies with bounded work (ADR 0043): the compiled evaluation agrees with the
straightforward one on any policy and payload, long arrays included; what a policy lists counts
towards its combinations; and the worst accepted policies against the largest payloads stay within
the budget (CPU time of this thread, with a wide margin: the budget is the ADR's, measured in
`make bench`; this only catches a return of the old multiplication)."""

from __future__ import annotations

import time
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from roomcast.filters.index import PayloadIndex
from roomcast.filters.policy import FilterPolicy, InvalidFilterPolicy, check_policy, evaluate
from roomcast.platform import limits
from roomcast.platform.payloads import payload_size_bytes
from tests import filter_reference

# Numbers close to each other (within and past the 1e-6 tolerance), strings sharing prefixes and
# suffixes, and every other kind of JSON value.
numbers = st.sampled_from([0, 1, 1.0, 1.0000004, 1.000003, 2, 2.5, -3, 1000, 10**12, 0.1])
strings = st.sampled_from(["", "a", "ab", "abc", "b", "ba", "cab", "ABC", "Ab", "x" * 3, "é"])
scalars = st.one_of(st.none(), st.booleans(), numbers, strings)
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from("ab"), inner, max_size=2),
    max_leaves=4,
)
# Arrays past the short-array threshold take the indexed path.
long_arrays = st.lists(values, min_size=17, max_size=40)
payloads = st.dictionaries(st.sampled_from("abcd"), values | long_arrays, max_size=4)

conditions = st.one_of(
    scalars,
    st.builds(lambda p: {"prefix": p}, st.sampled_from(["a", "ab", "c", "x"])),
    st.builds(lambda p: {"suffix": p}, st.sampled_from(["a", "b", "bc", "x"])),
    st.builds(lambda p: {"equals-ignore-case": p}, st.sampled_from(["abc", "AB", "é"])),
    st.builds(lambda n: {"numeric": [">=", n]}, numbers),
    st.builds(lambda n: {"numeric": ["=", n]}, numbers),
    st.builds(lambda n: {"numeric": ["<", n]}, numbers),
    st.builds(lambda a, b: {"numeric": [">", min(a, b) - 1, "<=", max(a, b)]}, numbers, numbers),
    st.builds(lambda v: {"anything-but": v}, strings.filter(bool) | numbers),
    st.builds(lambda v: {"anything-but": v}, st.lists(strings | numbers, min_size=1, max_size=4)),
    st.builds(lambda p: {"anything-but": {"prefix": p}}, st.sampled_from(["a", "b"])),
    st.builds(lambda p: {"anything-but": {"suffix": p}}, st.sampled_from(["a", "b"])),
    st.builds(lambda b: {"exists": b}, st.booleans()),
)
policies = st.dictionaries(
    st.sampled_from("abcd"),
    st.lists(conditions, min_size=1, max_size=3)
    | st.fixed_dictionaries({"a": st.lists(conditions, min_size=1)}),
    min_size=1,
    max_size=3,
)


def acceptable(policy: dict[str, Any]) -> bool:
    try:
        check_policy(policy)
    except InvalidFilterPolicy:
        return False
    return True


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(policy=policies.filter(acceptable), payload=payloads)
def test_the_compiled_evaluation_says_what_the_straightforward_one_says(
    policy: dict[str, Any], payload: dict[str, Any]
) -> None:
    # When
    compiled = FilterPolicy.of(policy).evaluate(payload, PayloadIndex())
    reference = filter_reference.evaluate(policy, payload)

    # Then
    assert (compiled.matched, compiled.reason) == (reference.matched, reference.reason)


def test_each_value_an_anything_but_lists_counts_towards_the_combinations() -> None:
    # Given: the policy the hostile test found, 20,000 values in one anything-but (128,917 bytes)
    policy = {"k": [{"anything-but": list(range(20_000))}]}

    # Then
    with pytest.raises(InvalidFilterPolicy) as refused:
        check_policy(policy)
    assert refused.value.kind == "filter_policy_too_complex"
    assert "20000 combinations" in refused.value.rule
    check_policy({"k": [{"anything-but": list(range(150))}]})  # as many as SNS's 150 still go


def test_an_integer_past_a_floats_range_is_compared_not_crashed_on() -> None:
    huge = 10**400
    assert evaluate({"n": [5]}, {"n": huge}).matched is False
    assert evaluate({"n": [{"numeric": [">", 5]}]}, {"n": huge}).matched is True
    assert evaluate({"n": [{"anything-but": [5]}]}, {"n": [huge] * 20}).matched is True


def limit_payload(key: str, element: Any) -> dict[str, Any]:
    """A payload of MAX_PAYLOAD_BYTES whose ``key`` is one long array of ``element``."""
    each = payload_size_bytes(element) + 1
    return {key: [element] * ((limits.MAX_PAYLOAD_BYTES - 20) // each)}


def cpu_ms(work: Any) -> float:
    start = time.thread_time()
    work()
    return (time.thread_time() - start) * 1000


# The worst policies within the limits: the most listed values (150), on a key the payload fills.
WORST_POLICIES = [
    {"k": [{"anything-but": list(range(150))}]},
    {"k": [{"prefix": f"p{n:03}"} for n in range(150)]},
    {"k": [{"suffix": f"{n:03}s"} for n in range(150)]},
    {"k": [{"equals-ignore-case": f"E{n}"} for n in range(150)]},
    {"k": [{"numeric": [">", n, "<", n + 0.5]} for n in range(150)]},
    {"k": [{"anything-but": [f"v{n}" for n in range(150)]}]},
    {"k": [{"anything-but": {"prefix": "x"}}] * 150},
]
WORST_ELEMENTS = [149, "p149zzz", "zzzz", 0.25, "x" * 8]


@pytest.mark.parametrize("policy", WORST_POLICIES, ids=range(len(WORST_POLICIES)))
def test_two_hundred_subscriptions_with_the_worst_policy_match_a_limit_sized_payload_within_budget(
    policy: dict[str, Any],
) -> None:
    # Given: a room's 200 subscriptions, each with the policy (compiled by a first message, as a
    # container compiles its room's policies once), and payloads of the largest size
    check_policy(policy)
    subscriptions = [FilterPolicy.of(policy) for _ in range(limits.MAX_SUBSCRIPTIONS_PER_ROOM)]
    for subscription in subscriptions:
        subscription.evaluate({"k": "first"})

    for element in WORST_ELEMENTS:
        payload = limit_payload("k", element)

        # When: one message routed through every subscription, as a publish does
        def route(payload: dict[str, Any] = payload) -> None:
            index = PayloadIndex()
            for subscription in subscriptions:
                subscription.evaluate(payload, index)

        # Then: the ADR's budget is 50 ms; ten times that catches a return of listed x array work
        assert cpu_ms(route) < 500, element
