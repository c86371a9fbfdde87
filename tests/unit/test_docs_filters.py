"""docs/filters.md's examples hold: every policy of the operator table matches the guide's payload."""

from __future__ import annotations

from typing import Any

import pytest

from roomcast.filters.policy import FilterPolicy
from tests.filter_guide import EXAMPLES


def test_the_guide_has_a_row_per_operator() -> None:
    assert len(EXAMPLES) >= 15


@pytest.mark.parametrize(("policy", "payload"), EXAMPLES, ids=[str(policy) for policy, _ in EXAMPLES])
def test_each_example_policy_matches_the_guides_payload(
    policy: dict[str, Any], payload: dict[str, Any]
) -> None:
    verdict = FilterPolicy.of(policy).evaluate(payload)
    assert verdict.matched, verdict.reason
