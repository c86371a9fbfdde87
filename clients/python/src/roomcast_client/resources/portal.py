"""``client.portal_sessions`` and ``client.portal_settings``: the portal your customers manage
their own endpoints in (docs/portal.md)."""

from __future__ import annotations

from collections.abc import Sequence

from roomcast_client._core import Call, query, read_model, read_nothing, segment
from roomcast_client._executors import E, Resource, operation
from roomcast_client.models import PortalSessionCreated, PortalSessionView, PortalSettingsView


class PortalSessions(Resource[E]):
    @operation
    def create(
        self,
        consumer_id: str,
        rooms: Sequence[str],
        *,
        event_types: Sequence[str] | None = None,
        read_only: bool | None = None,
        expires_in_seconds: int | None = None,
    ) -> Call[PortalSessionCreated]:
        """A session for one of your customers: its ``url`` (the portal page) and ``token`` reach
        only ``consumer_id``'s subscriptions on ``rooms`` (for ``event_types``, when given)."""
        body = query(
            consumerId=consumer_id,
            rooms=list(rooms),
            eventTypes=None if event_types is None else list(event_types),
            readOnly=read_only,
            expiresInSeconds=expires_in_seconds,
        )
        return Call("POST", "/portal-sessions", read_model(PortalSessionCreated), json=body, retry_safe=False)

    @operation
    def delete(self, session_id: str) -> Call[None]:
        """Revoke a session: its token answers 401 from the next request on."""
        return Call("DELETE", f"/portal-sessions/{segment(session_id)}", read_nothing)

    @operation
    def current(self) -> Call[PortalSessionView]:
        """With a portal token: its session (consumer, rooms, expiry, the portal's brand)."""
        return Call("GET", "/portal-session", read_model(PortalSessionView))


class PortalSettings(Resource[E]):
    @operation
    def get(self) -> Call[PortalSettingsView]:
        return Call("GET", "/portal-settings", read_model(PortalSettingsView))

    @operation
    def put(
        self,
        *,
        title: str | None = None,
        logo_url: str | None = None,
        accent_color: str | None = None,
        frame_ancestors: Sequence[str] | None = None,
    ) -> Call[PortalSettingsView]:
        """Set the page's brand and the origins that may frame it (absent fields: defaults)."""
        body = query(
            title=title,
            logoUrl=logo_url,
            accentColor=accent_color,
            frameAncestors=None if frame_ancestors is None else list(frame_ancestors),
        )
        return Call("PUT", "/portal-settings", read_model(PortalSettingsView), json=body)
