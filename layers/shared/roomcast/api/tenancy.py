"""The caller's tenant, as the authorizer resolved it from the API key: a route dependency."""

from __future__ import annotations

from typing import Annotated, Any

from aws_lambda_powertools.event_handler import Request
from aws_lambda_powertools.event_handler.depends import Depends

from roomcast.platform import RoomcastError


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
