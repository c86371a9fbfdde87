"""W3C Trace Context: the ``traceparent`` a publish carries on to its webhooks (a header) and its
PULL messages (a field), so that a receiver can join the publisher's trace
(https://www.w3.org/TR/trace-context/)."""

from __future__ import annotations

import re
from typing import Final

# version 00: trace id (32 hex, not all zeros), parent id (16 hex, not all zeros), flags (2 hex).
_TRACEPARENT: Final = re.compile(r"^00-(?!0{32})[0-9a-f]{32}-(?!0{16})[0-9a-f]{16}-[0-9a-f]{2}$")


def traceparent(value: str | None) -> str | None:
    """The header's value when it is a valid version-00 ``traceparent`` (lower case, as the
    standard writes it), else None: an invalid one is ignored, as the standard asks, never refused."""
    if value is None:
        return None
    value = value.strip()
    return value if _TRACEPARENT.match(value) else None
