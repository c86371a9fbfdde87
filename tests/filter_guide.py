"""docs/filters.md's examples, read from the guide: its payload and each operator's example policy
(with the payload it is shown on, when it has its own). Tests hold the guide to the code."""

from __future__ import annotations

import json
import re
from typing import Any

from tests.support import PROJECT_ROOT

GUIDE = (PROJECT_ROOT / "docs" / "filters.md").read_text()
_EXAMPLE = re.search(r"Given the payload\n\n```json\n(.*?)```", GUIDE, re.DOTALL)
assert _EXAMPLE is not None
PAYLOAD: dict[str, Any] = json.loads(_EXAMPLE.group(1))
ROWS: list[tuple[str, str, str]] = re.findall(
    r"^\| [^|]+ \| `(\{.*?\})`( on `(\{.*?\})`)? \|", GUIDE, re.MULTILINE
)
EXAMPLES: list[tuple[dict[str, Any], dict[str, Any]]] = [
    (json.loads(policy), json.loads(on) if on else PAYLOAD) for policy, _, on in ROWS
]
