"""API Gateway HTTP API's payload format 2.0, both ways: the event a route's function is invoked
with, built from the HTTP request, and the HTTP answer made of what the function returns; and
the gateway's own answers, with API Gateway's bodies ({"message": ...})."""

from __future__ import annotations

import base64
import json
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import parse_qsl

from roomcast_dev.local_aws import LOCAL_ACCOUNT_ID

TEXT_CONTENT_TYPES = (
    "text/",
    "application/json",
    "application/xml",
    "application/javascript",
    "+json",
    "+xml",
)


@dataclass(frozen=True)
class GatewayResponse:
    status: int
    headers: dict[str, str]
    body: bytes
    cookies: tuple[str, ...] = ()


def request_event(
    request: BaseHTTPRequestHandler,
    route_key: str,
    path_parameters: dict[str, str],
    path: str,
    query: str,
    body: bytes,
    started: float,
) -> dict[str, Any]:
    """The v2 event of a request (``started``: its arrival, epoch seconds) to the route ``route_key``."""
    headers: dict[str, str] = {}
    for name, value in request.headers.items():
        key = name.lower()
        headers[key] = f"{headers[key]},{value}" if key in headers else value
    query_parameters: dict[str, str] = {}
    for name, value in parse_qsl(query, keep_blank_values=True):
        query_parameters[name] = f"{query_parameters[name]},{value}" if name in query_parameters else value
    content_type = headers.get("content-type", "")
    is_text = not body or any(marker in content_type for marker in TEXT_CONTENT_TYPES)
    if is_text:
        try:
            body_text: str | None = body.decode("utf-8") if body else None
            is_base64 = False
        except UnicodeDecodeError:
            is_text = False
    if not is_text:
        body_text = base64.b64encode(body).decode("ascii")
        is_base64 = True
    cookies = [c.strip() for c in headers.pop("cookie", "").split(";") if c.strip()]
    now = datetime.fromtimestamp(started, UTC)
    event: dict[str, Any] = {
        "version": "2.0",
        "routeKey": route_key,
        "rawPath": path,
        "rawQueryString": query,
        "headers": headers,
        "requestContext": {
            "accountId": LOCAL_ACCOUNT_ID,
            "apiId": "local",
            "domainName": headers.get("host", "localhost"),
            "domainPrefix": "local",
            "http": {
                "method": request.command,
                "path": path,
                "protocol": request.request_version,
                "sourceIp": request.client_address[0],
                "userAgent": headers.get("user-agent", ""),
            },
            "requestId": uuid.uuid4().hex,
            "routeKey": route_key,
            "stage": "$default",
            "time": now.strftime("%d/%b/%Y:%H:%M:%S +0000"),
            "timeEpoch": int(started * 1000),
        },
        "isBase64Encoded": is_base64,
    }
    if cookies:
        event["cookies"] = cookies
    if query_parameters:
        event["queryStringParameters"] = query_parameters
    if path_parameters:
        event["pathParameters"] = path_parameters
    if body_text is not None:
        event["body"] = body_text
    return event


def function_response(result: Any) -> GatewayResponse:
    """Payload 2.0: a dict with statusCode is a full response; anything else is a JSON 200 body."""
    if not (isinstance(result, dict) and "statusCode" in result):
        return GatewayResponse(200, {"content-type": "application/json"}, json.dumps(result).encode())
    headers = {str(k): str(v) for k, v in (result.get("headers") or {}).items()}
    for name, values in (result.get("multiValueHeaders") or {}).items():
        headers[str(name)] = ",".join(str(v) for v in values)
    raw_body = result.get("body") or ""
    body = base64.b64decode(raw_body) if result.get("isBase64Encoded") else str(raw_body).encode("utf-8")
    return GatewayResponse(int(result["statusCode"]), headers, body, tuple(result.get("cookies") or ()))


def message_response(status: int, message: str) -> GatewayResponse:
    """An answer of the gateway's own, with API Gateway's body."""
    # nosniff as on the functions' answers (roomcast.api.handlers): JSON is never sniffed as HTML.
    body = json.dumps({"message": message}).encode()
    return GatewayResponse(
        status, {"content-type": "application/json", "x-content-type-options": "nosniff"}, body
    )


def status_message(status: HTTPStatus) -> str:
    # API Gateway's wording, which predates RFC 9110's "Content Too Large".
    return "Request Entity Too Large" if status is HTTPStatus.REQUEST_ENTITY_TOO_LARGE else status.phrase
