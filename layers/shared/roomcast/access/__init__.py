"""Access: who calls (an API key's scopes and rooms, a portal session's reach), what each route
allows, and the portal sessions' store (docs/decisions/0048-scoped-keys-and-portal.md).

Entry points: the names below (other capabilities and the functions import only these);
imported when first used (roomcast.platform.entry_points)."""

from typing import TYPE_CHECKING

from roomcast.platform.entry_points import lazy_entry_points

if TYPE_CHECKING:
    from roomcast.access.gate import AccessGate as AccessGate, caller_of as caller_of
    from roomcast.access.model import (
        ALL_SCOPES as ALL_SCOPES,
        CONSUMER_ID_PATTERN as CONSUMER_ID_PATTERN,
        DEFAULT_PORTAL_SESSION_SECONDS as DEFAULT_PORTAL_SESSION_SECONDS,
        MAX_KEY_ROOMS as MAX_KEY_ROOMS,
        MAX_PORTAL_EVENT_TYPES as MAX_PORTAL_EVENT_TYPES,
        MAX_PORTAL_SESSION_SECONDS as MAX_PORTAL_SESSION_SECONDS,
        Caller as Caller,
        Scope as Scope,
        caller_from_context as caller_from_context,
        parse_scopes as parse_scopes,
        to_context as to_context,
    )
    from roomcast.access.routes import (
        ROUTES as ROUTES,
        RouteTable as RouteTable,
        request_line as request_line,
    )
    from roomcast.access.rule import (
        PortalUse as PortalUse,
        Refusal as Refusal,
        RouteAccess as RouteAccess,
        access as access,
        default_access as default_access,
        refusal as refusal,
    )

if not TYPE_CHECKING:
    __getattr__ = lazy_entry_points(__name__, __file__)
