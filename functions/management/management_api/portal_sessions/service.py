"""Opening and revoking portal sessions (storage: roomcast.portal.sessions)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from management_api.common import require_rooms
from roomcast.catalog import CatalogTable
from roomcast.platform import now_iso, now_ms
from roomcast.portal import (
    PortalReach,
    PortalSession,
    PortalSessionTable,
    PortalSettings,
    PortalSettingsTable,
    new_portal_token,
    new_session_id,
)


@dataclass
class PortalSessionsService:
    sessions: PortalSessionTable
    catalog: CatalogTable
    settings: PortalSettingsTable
    clock_ms: Callable[[], int] = now_ms

    def open(
        self,
        tenant_id: str,
        consumer_id: str,
        rooms: list[str],
        event_types: list[str] | None,
        read_only: bool,
        expires_in_seconds: int,
    ) -> tuple[PortalSession, str]:
        """A new session and its token (to show once). Each room must be the tenant's (422 naming
        the first that is not)."""
        require_rooms(self.catalog, tenant_id, rooms)
        reach = PortalReach(
            session_id=new_session_id(),
            consumer_id=consumer_id,
            rooms=tuple(rooms),
            event_types=None if event_types is None else tuple(event_types),
            read_only=read_only,
            expires_at_ms=self.clock_ms() + expires_in_seconds * 1000,
        )
        session = PortalSession(tenant_id, reach, now_iso())
        token = new_portal_token()
        self.sessions.create(session, token)
        return session, token

    def revoke(self, tenant_id: str, session_id: str) -> None:
        self.sessions.revoke(tenant_id, session_id, now_iso())

    def settings_of(self, tenant_id: str) -> PortalSettings:
        return self.settings.get(tenant_id)

    def save_settings(self, tenant_id: str, settings: PortalSettings) -> None:
        self.settings.put(tenant_id, settings, now_iso())
