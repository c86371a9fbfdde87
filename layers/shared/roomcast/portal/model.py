"""What a portal session reaches: one consumer's subscriptions on some rooms, for some event
types, read-only or not, until it expires."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class PortalReach:
    """What a portal session may see and change: one consumer's subscriptions on these rooms,
    for these event types (None: any); read-only or not; until when."""

    session_id: str
    consumer_id: str
    rooms: tuple[str, ...]
    event_types: tuple[str, ...] | None
    read_only: bool
    expires_at_ms: int

    def covers_event_types(self, names: tuple[str, ...]) -> bool:
        """Whether a subscription to these event types (empty: every event) is within the reach."""
        if self.event_types is None:
            return True
        return bool(names) and set(names) <= set(self.event_types)
