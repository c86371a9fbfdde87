"""The caller's tenant, as the authorizer resolved it from the API key: a route dependency."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any

from aws_lambda_powertools.event_handler import Request
from aws_lambda_powertools.event_handler.depends import Depends

from roomcast.access import Caller
from roomcast.platform import RoomcastError
from roomcast.portal import PortalReach


def _authorizer_context(request: Request) -> dict[str, Any]:
    """What the authorizer passed on (``requestContext.authorizer.lambda``)."""
    context: dict[str, Any] = request.resolved_event.request_context.authorizer.get_lambda or {}  # type: ignore[attr-defined]
    return context


def tenant_id(request: Request) -> str:
    """The tenant in the authorizer's context (``requestContext.authorizer.lambda.tenantId``)."""
    tenant = _authorizer_context(request).get("tenantId")
    if not isinstance(tenant, str) or not tenant:
        raise RoomcastError("missing or invalid API key", code="unauthorized", http_status=401)
    return tenant


Tenant = Annotated[str, Depends(tenant_id)]


def tenant_of(event: dict[str, Any]) -> str | None:
    """The tenant the authorizer resolved for a raw API event, if any (before any route runs)."""
    context = (event.get("requestContext") or {}).get("authorizer") or {}
    tenant = (context.get("lambda") or {}).get("tenantId") if isinstance(context, dict) else None
    return tenant if isinstance(tenant, str) and tenant else None


def caller_key_id(request: Request) -> str:
    """The id of the key the request was made with (the authorizer's ``keyId``; empty for a key
    stored before keys had ids)."""
    key_id = _authorizer_context(request).get("keyId")
    return key_id if isinstance(key_id, str) else ""


CallerKeyId = Annotated[str, Depends(caller_key_id)]


def caller_access(request: Request) -> CallerAccess:
    """Who calls (roomcast.access.Caller) and, for a portal session, what it reaches: what the
    gate let through (roomcast.access.gate)."""
    from roomcast.access import caller_of

    caller, reach = caller_of(_authorizer_context(request))
    if caller is None or (caller.is_portal and reach is None):
        raise RoomcastError("missing or invalid API key", code="unauthorized", http_status=401)
    return CallerAccess(caller, reach)


@dataclass(frozen=True)
class CallerAccess:
    caller: Caller
    reach: PortalReach | None  # a portal session's; None for an API key

    def visible(self, room_id: str) -> bool:
        """Whether the caller may see the room at all (a key limited to rooms, a portal session)."""
        if self.reach is not None:
            return room_id in self.reach.rooms
        return self.caller.reaches_room(room_id)


Access = Annotated[CallerAccess, Depends(caller_access)]


def request_origin(request: Request) -> str:
    """The API's origin as the caller reached it (``https://<domain>``; the scheme API Gateway
    puts in ``X-Forwarded-Proto``, http for a local stack on loopback): for URLs the API answers."""
    event = request.resolved_event
    context = event.raw_event.get("requestContext") or {}
    domain = str(context.get("domainName") or "localhost")
    headers = {str(name).lower(): str(value) for name, value in (event.headers or {}).items()}
    loopback = domain.split(":")[0] in ("localhost", "127.0.0.1", "[::1]")
    scheme = headers.get("x-forwarded-proto") or ("http" if loopback else "https")
    return f"{'http' if scheme == 'http' else 'https'}://{domain}"


Origin = Annotated[str, Depends(request_origin)]
