"""The one JSON error shape of the API: ``{"error": {"code", "message", "details": [...]}}``."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from aws_lambda_powertools.event_handler import Response, content_types

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
    """A 415 response for a body that is not declared JSON (curl -d sends form encoding), else None."""
    method = (event.get("requestContext", {}).get("http", {}).get("method") or "").upper()
    if method not in ("POST", "PUT", "PATCH") or not event.get("body"):
        return None
    headers = {str(name).lower(): str(value) for name, value in (event.get("headers") or {}).items()}
    media_type = headers.get("content-type", "").split(";", 1)[0].strip().lower()
    if media_type == "application/json" or media_type.endswith("+json"):
        return None
    message = f"request body must be JSON: send Content-Type: application/json (got {media_type or 'none'!r})"
    body = {"error": {"code": "unsupported_media_type", "message": message, "details": []}}
    return {"statusCode": 415, "headers": {"Content-Type": "application/json"}, "body": json.dumps(body)}
