"""A tenant's portal settings: how the page looks to its customers (title, logo, accent colour)
and the origins allowed to frame it (the page's ``frame-ancestors``). One item,
``TENANT#<tenant>`` / ``PORTALSETTINGS``; a tenant that never set them gets the defaults."""

from __future__ import annotations

from typing import Final

from roomcast.platform import TableAccess, items, key, tenant_key
from roomcast.portal.model import DEFAULT_PORTAL_SETTINGS, PortalSettings

_SORT_KEY: Final = "PORTALSETTINGS"


class PortalSettingsTable(TableAccess):
    def get(self, tenant_id: str) -> PortalSettings:
        found = self._client.get_item(
            TableName=self._table_name, Key=key(tenant_key(tenant_id), _SORT_KEY)
        ).get("Item")
        if not found:
            return DEFAULT_PORTAL_SETTINGS
        item = items.from_attributes(found)
        logo = item.get("logoUrl")
        return PortalSettings(
            title=str(item.get("title") or DEFAULT_PORTAL_SETTINGS.title),
            logo_url=None if logo is None else str(logo),
            accent_color=str(item.get("accentColor") or DEFAULT_PORTAL_SETTINGS.accent_color),
            frame_ancestors=tuple(str(origin) for origin in item.get("frameAncestors") or ()),
        )

    def put(self, tenant_id: str, settings: PortalSettings, updated_at: str) -> None:
        item: dict[str, object] = {
            "PK": tenant_key(tenant_id),
            "SK": _SORT_KEY,
            "entity": "portalSettings",
            "title": settings.title,
            "accentColor": settings.accent_color,
            "frameAncestors": list(settings.frame_ancestors),
            "updatedAt": updated_at,
        }
        if settings.logo_url is not None:
            item["logoUrl"] = settings.logo_url
        self._client.put_item(TableName=self._table_name, Item=items.to_attributes(item))
