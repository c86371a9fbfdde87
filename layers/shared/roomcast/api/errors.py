"""The one JSON error shape of the API: ``{"error": {"code", "message", "details": [...]}}``."""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Sequence
from typing import Any

from aws_lambda_powertools.event_handler import ApiGatewayResolver, Response, content_types

ROOM_OWNER_ONLY = "messageExpirationMs is set by the room owner only; a subscription cannot override it"


def error_response(
    status: int, code: str, message: str, details: Sequence[dict[str, Any]] = ()
) -> Response[Any]:
    body = {"error": {"code": code, "message": message, "details": list(details)}}
    return Response(status_code=status, content_type=content_types.APPLICATION_JSON, body=body)


def _field(location: Sequence[Any]) -> str:
    # Drop the discriminator tag pydantic adds for tagged unions (body.PUSH.pushUrl -> body.pushUrl).
    parts = [str(p) for p in location if p not in ("PUSH", "PULL")]
    if parts[:1] == ["body"] and len(parts) == 2 and parts[1].isdigit():
        return "body"  # json_invalid reports the character offset as a location
    return ".".join(parts)


def _problem(error: dict[str, Any]) -> str:
    location = error.get("loc", ())
    if error.get("type") == "extra_forbidden" and location and location[-1] == "messageExpirationMs":
        return ROOM_OWNER_ONLY
    if error.get("type") == "json_invalid":
        return "request body is not valid JSON"
    if error.get("type") == "union_tag_invalid":
        return "type must be PUSH or PULL"
    if error.get("type") == "union_tag_not_found":
        return "type is required (PUSH or PULL)"
    return str(error.get("msg", error.get("type", "invalid")))


def validation_error_response(errors: Sequence[Any]) -> Response[Any]:
    details = [
        {"field": _field(e.get("loc", ())), "problem": _problem(e), "type": str(e.get("type", "invalid"))}
        for e in errors
    ]
    if any(d["type"] == "json_invalid" for d in details):
        return error_response(400, "malformed_json", "request body is not valid JSON", details)
    summary = "; ".join(f"{d['field']}: {d['problem']}" for d in details[:5]) or "invalid request"
    return error_response(422, "validation_error", summary, details)


def json_body_required(event: dict[str, Any]) -> dict[str, Any] | None:
    """Check a request body before the resolver sees it; an error response, or None when fine.

    - a body not declared JSON (curl -d sends form encoding) → 415;
    - bytes that are not UTF-8, or JSON Python cannot parse (too deep, huge integers) → 400;
    - JSON whose top level is not an object → 422 (powertools would validate a list's first item).
    A good body's content type is normalised to ``application/json`` for powertools.
    """
    method = (event.get("requestContext", {}).get("http", {}).get("method") or "").upper()
    if method not in ("POST", "PUT", "PATCH") or not event.get("body"):
        return None
    headers = {str(name).lower(): str(value) for name, value in (event.get("headers") or {}).items()}
    media_type = headers.get("content-type", "").split(";", 1)[0].strip().lower()
    if media_type != "application/json" and not (
        media_type.startswith("application/") and media_type.endswith("+json")
    ):
        message = (
            f"request body must be JSON: send Content-Type: application/json (got {media_type or 'none'!r})"
        )
        return gateway_error(415, "unsupported_media_type", message)
    try:
        raw = (
            base64.b64decode(event["body"], validate=True)
            if event.get("isBase64Encoded")
            else event["body"].encode()
        )
        text = raw.decode("utf-8")
        parsed = json.loads(text)
    except (ValueError, RecursionError, binascii.Error):
        return gateway_error(400, "malformed_json", "request body is not valid JSON (or not UTF-8)")
    if not isinstance(parsed, dict):
        return gateway_error(422, "validation_error", "request body must be a JSON object")
    event["headers"] = {
        k: v for k, v in (event.get("headers") or {}).items() if str(k).lower() != "content-type"
    }
    event["headers"]["content-type"] = "application/json"
    event["body"], event["isBase64Encoded"] = text, False
    return None


def gateway_error(status: int, code: str, message: str) -> dict[str, Any]:
    """An error answered before the resolver runs, already in the HTTP API's response format."""
    body = {"error": {"code": code, "message": message, "details": []}}
    return {
        "statusCode": status,
        "headers": {"Content-Type": "application/json"},
        "body": json.dumps(body, separators=(",", ":")),
    }


def body_too_large(event: dict[str, Any], limit_bytes: int) -> dict[str, Any] | None:
    """A 413 for a request body over ``limit_bytes``, refused before it is parsed."""
    body = event.get("body") or ""
    size = len(body) * 3 // 4 if event.get("isBase64Encoded") else len(body.encode("utf-8"))
    if size <= limit_bytes:
        return None
    return gateway_error(
        413, "payload_too_large", f"request body is {size} bytes; the limit is {limit_bytes}"
    )


def install_error_handlers(app: ApiGatewayResolver) -> None:
    """Map validation errors, domain errors, unknown routes and surprises to the one error shape."""
    from aws_lambda_powertools.event_handler.exceptions import NotFoundError
    from aws_lambda_powertools.event_handler.openapi.exceptions import RequestValidationError

    from roomcast.errors import RoomcastError
    from roomcast.observability import logger

    def on_validation_error(error: RequestValidationError) -> Response[Any]:
        return validation_error_response(error.errors())

    def on_domain_error(error: RoomcastError) -> Response[Any]:
        return error_response(error.http_status, error.code, error.message, error.details)

    def on_not_found(_: NotFoundError) -> Response[Any]:
        http = app.current_event.request_context.http  # type: ignore[attr-defined]
        return error_response(404, "route_not_found", f"no route for {http.method} {app.current_event.path}")

    def on_unexpected(error: Exception) -> Response[Any]:
        logger.exception("unexpected error")
        return error_response(500, "internal_error", "internal error; the request may be retried")

    app.exception_handler(RequestValidationError)(on_validation_error)
    app.exception_handler(RoomcastError)(on_domain_error)
    app.not_found(on_not_found)
    app.exception_handler(Exception)(on_unexpected)


def tenant_id(app: ApiGatewayResolver) -> str:
    """The tenant the authorizer resolved from the API key."""
    from roomcast.errors import RoomcastError

    context = app.current_event.request_context.authorizer.get_lambda or {}  # type: ignore[attr-defined]
    tenant = context.get("tenantId")
    if not isinstance(tenant, str) or not tenant:
        raise RoomcastError("missing or invalid API key", code="unauthorized", http_status=401)
    return tenant
