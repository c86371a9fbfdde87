"""The one rule of who may call a route (pure): a key's scopes and rooms, a portal session's reach.

Every route declares its ``RouteAccess`` where it is declared (roomcast.api.Routes): the scopes
that let a key call it (``admin`` always does) and whether a portal session may call it, read-only
or not. ``refusal`` is what the API answers a caller the route is not for, before anything else
runs (no body is read, no service made): 403 naming the missing scope; 404 for a room outside a
key's list or a session's rooms, and for any route a portal session cannot use, so that neither
learns that a room or a route exists (docs/decisions/0048-scoped-keys-and-portal.md).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from roomcast.access.model import Caller, Scope
from roomcast.portal import PortalReach


class PortalUse(StrEnum):
    """Whether a portal session may call a route."""

    NEVER = "never"
    READ = "read"  # also in a read-only session
    WRITE = "write"  # not in a read-only session


@dataclass(frozen=True)
class RouteAccess:
    """Who may call a route: a key with any of ``scopes`` (or ``admin``); a portal session when
    ``portal`` is not NEVER; a key limited to rooms on a route without ``{roomId}`` only when
    ``beyond_rooms`` (listing its rooms, reading the catalog)."""

    scopes: frozenset[Scope]
    portal: PortalUse = PortalUse.NEVER
    beyond_rooms: bool = False

    @property
    def named_scope(self) -> Scope:
        """The scope a refusal names: the narrowest that would do."""
        for scope in (Scope.PUBLISH, Scope.CONSUME, Scope.READ, Scope.MANAGE, Scope.ADMIN):
            if scope in self.scopes:
                return scope
        return Scope.ADMIN


def access(*scopes: Scope, portal: PortalUse = PortalUse.NEVER, beyond_rooms: bool = False) -> RouteAccess:
    return RouteAccess(frozenset(scopes), portal, beyond_rooms)


def default_access(method: str) -> RouteAccess:
    """A route that declares nothing: a GET is for ``read`` and ``manage`` keys, anything else for
    ``manage`` keys; no portal session."""
    if method.upper() == "GET":
        return access(Scope.READ, Scope.MANAGE)
    return access(Scope.MANAGE)


@dataclass(frozen=True)
class Refusal:
    status: int
    code: str
    message: str
    details: tuple[dict[str, Any], ...] = field(default=())


def not_found(method: str, path: str) -> Refusal:
    return Refusal(404, "not_found", f"{method.upper()} {path[:200]}: not found")


def room_not_found(room_id: str) -> Refusal:
    return Refusal(404, "not_found", f"room {room_id[:80]} not found")


def refusal(
    caller: Caller,
    route: RouteAccess,
    method: str,
    path: str,
    room_id: str | None,
    reach: PortalReach | None = None,
) -> Refusal | None:
    """Why ``caller`` may not call the route (``room_id``: its ``{roomId}``, if it has one), or
    None. A portal caller's ``reach`` is its session as read by the function (None: none found)."""
    if caller.is_portal:
        return _portal_refusal(route, method, path, room_id, reach)
    if not caller.may(route.scopes):
        scope = route.named_scope
        held = ", ".join(sorted(caller.scopes)) or "none"
        return Refusal(
            403,
            "missing_scope",
            f"this API key lacks the scope {scope.value} that {method.upper()} {path[:200]} needs "
            f"(it has: {held})",
            ({"field": "scopes", "problem": f"needs {scope.value}", "type": "missing_scope"},),
        )
    if room_id is not None and not caller.reaches_room(room_id):
        return room_not_found(room_id)
    if room_id is None and caller.rooms is not None and not route.beyond_rooms:
        return Refusal(
            403,
            "room_limited",
            f"this API key works only on its rooms; {method.upper()} {path[:200]} is not about one room",
            ({"field": "rooms", "problem": "the key is limited to rooms", "type": "room_limited"},),
        )
    return None


def _portal_refusal(
    route: RouteAccess, method: str, path: str, room_id: str | None, reach: PortalReach | None
) -> Refusal | None:
    if route.portal is PortalUse.NEVER:
        return not_found(method, path)
    if reach is None:
        return Refusal(401, "unauthorized", "this portal session was revoked or never existed")
    if room_id is not None and room_id not in reach.rooms:
        return room_not_found(room_id)
    if route.portal is PortalUse.WRITE and reach.read_only:
        return Refusal(403, "read_only", "this portal session is read-only: it can look, not change")
    return None


def expired(reach: PortalReach, now_ms: int) -> Refusal | None:
    if now_ms >= reach.expires_at_ms:
        return Refusal(401, "session_expired", "this portal session has expired: open the portal again")
    return None
