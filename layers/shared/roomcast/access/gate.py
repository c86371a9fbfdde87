"""The access check of an API function, before anything else of a request runs.

``AccessGate.check(event)`` finds the route the resolver will run (roomcast.access.routes), the
caller the authorizer resolved, and answers with the rule's refusal (roomcast.access.rule); for a
portal session it first reads the session (revoked, expired or unknown: 401), and on a route about
one subscription, whether that subscription is the session's consumer's (404 otherwise). A caller
let through carries what it may reach into the event (``caller_of`` reads it), so that a listing
shows only its consumer's subscriptions and a creation is its consumer's.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from roomcast.access.model import Caller, caller_from_context
from roomcast.access.routes import ROUTES, RouteTable, request_line
from roomcast.access.rule import Refusal, expired, not_found, refusal
from roomcast.platform import now_ms
from roomcast.portal import PortalReach

if TYPE_CHECKING:
    from roomcast.portal import PortalSessionTable

# Whether a subscription (tenant, room, subscription id) is within a portal session's reach.
SubscriptionReach = Callable[[str, PortalReach, str, str], bool]
_REACH = "portalReach"  # where a verified portal caller's reach rides in the authorizer context


@dataclass
class AccessGate:
    sessions: Callable[[], PortalSessionTable] | None = None  # None: no route here takes a portal
    subscription_reach: SubscriptionReach | None = None
    routes: RouteTable = field(default_factory=lambda: ROUTES)
    clock: Callable[[], int] = now_ms

    def check(self, event: dict[str, Any]) -> Refusal | None:
        """Why this request may not run (the answer to give), or None; a portal caller let through
        has its reach added to the event's authorizer context."""
        context = _context(event)
        caller = caller_from_context(context) if context is not None else None
        if caller is None:
            return None  # no tenant: the routes answer 401 themselves
        method, path = request_line(event)
        if caller.is_portal and self.sessions is None:
            return not_found(method, path)  # no route of this function is a portal session's
        reach = self._reach(caller)
        if caller.is_portal:
            if reach is None:
                return Refusal(401, "unauthorized", "this portal session was revoked or never existed")
            stale = expired(reach, self.clock())
            if stale is not None:
                return stale
        matched = self.routes.match(method, path)
        if matched is None:
            return not_found(method, path) if caller.is_portal else None  # the resolver's 404/405
        refused = refusal(caller, matched.route.access, method, path, matched.room_id, reach)
        if refused is not None or reach is None:
            return refused
        room_id, subscription_id = matched.room_id, matched.subscription_id
        if (
            room_id is not None
            and subscription_id is not None
            and (
                self.subscription_reach is None
                or not self.subscription_reach(caller.tenant_id, reach, room_id, subscription_id)
            )
        ):
            return Refusal(
                404, "not_found", f"subscription {subscription_id[:80]} not found in room {room_id[:80]}"
            )
        assert context is not None
        context[_REACH] = {
            "sessionId": reach.session_id,
            "consumerId": reach.consumer_id,
            "rooms": list(reach.rooms),
            "eventTypes": None if reach.event_types is None else list(reach.event_types),
            "readOnly": reach.read_only,
            "expiresAtMs": reach.expires_at_ms,
        }
        return None

    def _reach(self, caller: Caller) -> PortalReach | None:
        if caller.portal_session_id is None or self.sessions is None:
            return None
        return self.sessions().reach(caller.tenant_id, caller.portal_session_id)


def _context(event: dict[str, Any]) -> dict[str, Any] | None:
    authorizer = (event.get("requestContext") or {}).get("authorizer")
    context = authorizer.get("lambda") if isinstance(authorizer, dict) else None
    return context if isinstance(context, dict) else None


def caller_of(context: dict[str, Any]) -> tuple[Caller | None, PortalReach | None]:
    """The caller of a request let through by the gate, and a portal caller's reach."""
    caller = caller_from_context(context)
    found = context.get(_REACH)
    if caller is None or not caller.is_portal or not isinstance(found, dict):
        return caller, None
    event_types = found.get("eventTypes")
    return caller, PortalReach(
        session_id=str(found["sessionId"]),
        consumer_id=str(found["consumerId"]),
        rooms=tuple(found["rooms"]),
        event_types=None if event_types is None else tuple(event_types),
        read_only=bool(found["readOnly"]),
        expires_at_ms=int(found["expiresAtMs"]),
    )
