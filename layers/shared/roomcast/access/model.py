"""Who is calling and what a route lets them do: scopes, the caller, a portal session's reach.

A caller is an API key (its scopes, and the rooms it is limited to, if any) or a portal session
(one consumer's subscriptions on some rooms, docs/portal.md). The authorizer resolves the bearer
credential once per cache period and passes the caller to the functions in its context, as strings
(``to_context``/``caller_from_context``); the functions decide per route (roomcast.access.rule).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Final


class Scope(StrEnum):
    """What an API key may do (docs/decisions/0048-scoped-keys-and-portal.md)."""

    ADMIN = "admin"  # everything: today's keys, and the default
    MANAGE = "manage"  # rooms, subscriptions, catalog, alerts, dead letters, jobs; never keys
    READ = "read"  # every GET
    PUBLISH = "publish"  # publish, and read the rooms' messages and their attempts
    CONSUME = "consume"  # pull, ack, nack and extend a PULL subscription's messages


ALL_SCOPES: Final = tuple(Scope)
MAX_KEY_ROOMS: Final = 20  # rooms one key may be limited to
# A portal session: at most a day, rooms and event types bounded like a key's.
MAX_PORTAL_SESSION_SECONDS: Final = 86_400
DEFAULT_PORTAL_SESSION_SECONDS: Final = 3_600
MAX_PORTAL_EVENT_TYPES: Final = 50
CONSUMER_ID_PATTERN: Final = r"^[A-Za-z0-9_.:@-]{1,128}$"

KEY_CALLER: Final = "key"
PORTAL_CALLER: Final = "portal"


@dataclass(frozen=True)
class Caller:
    """Who makes a request: the tenant, and either an API key's scopes and rooms (None: every
    room) or a portal session (``portal_session_id``, its reach read by the function itself)."""

    tenant_id: str
    key_id: str = ""
    scopes: frozenset[Scope] = frozenset({Scope.ADMIN})
    rooms: frozenset[str] | None = None
    portal_session_id: str | None = None

    @property
    def is_portal(self) -> bool:
        return self.portal_session_id is not None

    def may(self, scopes: frozenset[Scope]) -> bool:
        return Scope.ADMIN in self.scopes or bool(self.scopes & scopes)

    def reaches_room(self, room_id: str) -> bool:
        return self.rooms is None or room_id in self.rooms


def parse_scopes(text: str | None) -> frozenset[Scope]:
    """The scopes of a stored key or an authorizer context (``"publish,read"``); a key stored
    before keys had scopes (nothing stored) is ``admin``; names this version does not know are
    ignored, so a key never gains a right from one."""
    if not text:
        return frozenset({Scope.ADMIN})
    known = {scope.value: scope for scope in Scope}
    return frozenset(known[name] for name in text.split(",") if name in known)


def to_context(caller: Caller) -> dict[str, str]:
    """The authorizer context for a caller: strings only (what API Gateway passes on)."""
    if caller.portal_session_id is not None:
        return {"tenantId": caller.tenant_id, "caller": PORTAL_CALLER, "sessionId": caller.portal_session_id}
    return {
        "tenantId": caller.tenant_id,
        "keyId": caller.key_id,
        "caller": KEY_CALLER,
        "scopes": ",".join(sorted(caller.scopes)),
        "rooms": "" if caller.rooms is None else ",".join(sorted(caller.rooms)),
        "roomLimited": "true" if caller.rooms is not None else "false",
    }


def caller_from_context(context: dict[str, Any]) -> Caller | None:
    """The caller the authorizer put in the context, or None without a tenant. A context from an
    authorizer older than scopes (no ``caller``) is an admin key's."""
    tenant = context.get("tenantId")
    if not isinstance(tenant, str) or not tenant:
        return None
    if context.get("caller") == PORTAL_CALLER:
        session = context.get("sessionId")
        return Caller(tenant, portal_session_id=session if isinstance(session, str) and session else "")
    key_id = context.get("keyId")
    scopes = context.get("scopes")
    limited = str(context.get("roomLimited", "false")).lower() == "true"
    rooms = str(context.get("rooms") or "")
    return Caller(
        tenant,
        key_id if isinstance(key_id, str) else "",
        parse_scopes(scopes if isinstance(scopes, str) else None),
        frozenset(filter(None, rooms.split(","))) if limited else None,
    )
