"""docs/filters.md's examples hold: every policy of the operator table matches the guide's payload."""

from __future__ import annotations

import json
import re

import pytest

from roomcast.domain.filter_policy import FilterPolicy
from tests.support import PROJECT_ROOT

GUIDE = (PROJECT_ROOT / "docs" / "filters.md").read_text()
_EXAMPLE = re.search(r"Given the payload\n\n```json\n(.*?)```", GUIDE, re.DOTALL)
assert _EXAMPLE is not None
PAYLOAD = json.loads(_EXAMPLE.group(1))
ROWS = re.findall(r"^\| [^|]+ \| `(\{.*?\})`( on `(\{.*?\})`)? \|", GUIDE, re.MULTILINE)


def test_the_guide_has_a_row_per_operator() -> None:
    assert len(ROWS) >= 15


@pytest.mark.parametrize(("policy", "_on", "payload"), ROWS, ids=[r[0] for r in ROWS])
def test_each_example_policy_matches_the_guides_payload(policy: str, _on: str, payload: str) -> None:
    # When
    verdict = FilterPolicy.of(json.loads(policy)).evaluate(json.loads(payload) if payload else PAYLOAD)

    # Then
    assert verdict.matched, verdict.reason
