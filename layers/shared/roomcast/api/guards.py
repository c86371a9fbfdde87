"""Checks a request body gets before the resolver sees it, answered in the HTTP API's own format."""

from __future__ import annotations

import base64
import binascii
import json
from typing import Any


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
