"""Values that compare equal to anything of a shape, for asserting whole responses exactly."""

from __future__ import annotations

import re
from typing import Any


class Matches:
    """Equal to any string that fully matches ``pattern``."""

    def __init__(self, pattern: str) -> None:
        self.pattern = re.compile(pattern)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, str) and self.pattern.fullmatch(other) is not None

    def __hash__(self) -> int:
        return hash(self.pattern.pattern)

    def __repr__(self) -> str:
        return f"Matches({self.pattern.pattern!r})"


ROOM_ID: Any = Matches(r"room_[0-9a-f]{32}")
SUBSCRIPTION_ID: Any = Matches(r"sub_[0-9a-f]{32}")
MESSAGE_ID: Any = Matches(r"msg_[0-9a-f]{32}")
TIMESTAMP: Any = Matches(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z")
SIGNING_SECRET: Any = Matches(r"whsec_[A-Za-z0-9+/]{43}=")
