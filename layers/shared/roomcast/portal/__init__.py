"""The portal: sessions a tenant opens for one of its customers (a short-lived token that reaches
only that consumer's subscriptions) and the tenant's portal settings (its brand, the origins that
may frame the page). docs/portal.md, docs/decisions/0048-scoped-keys-and-portal.md.

Entry points: the names below (other capabilities and the functions import only these);
imported when first used (roomcast.platform.entry_points)."""

from typing import TYPE_CHECKING

from roomcast.platform.entry_points import lazy_entry_points

if TYPE_CHECKING:
    from roomcast.portal.model import (
        DEFAULT_PORTAL_SETTINGS as DEFAULT_PORTAL_SETTINGS,
        PortalReach as PortalReach,
        PortalSettings as PortalSettings,
    )
    from roomcast.portal.sessions import (
        PORTAL_TOKEN_PREFIX as PORTAL_TOKEN_PREFIX,
        SESSION_ID_PATTERN as SESSION_ID_PATTERN,
        PortalSession as PortalSession,
        PortalSessionTable as PortalSessionTable,
        is_session_id as is_session_id,
        new_portal_token as new_portal_token,
        new_session_id as new_session_id,
    )
    from roomcast.portal.settings import PortalSettingsTable as PortalSettingsTable

if not TYPE_CHECKING:
    __getattr__ = lazy_entry_points(__name__, __file__)
