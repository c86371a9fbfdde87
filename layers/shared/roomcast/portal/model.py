"""What a portal session reaches: one consumer's subscriptions on some rooms, for some event
types, read-only or not, until it expires."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final


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


@dataclass(frozen=True)
class PortalSettings:
    title: str = "Webhooks"
    logo_url: str | None = None
    accent_color: str = "#2f6fed"
    frame_ancestors: tuple[str, ...] = ()  # origins that may frame the page; none: no framing


DEFAULT_PORTAL_SETTINGS: Final = PortalSettings()
