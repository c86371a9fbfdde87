"""A local stand-in for API Gateway HTTP API: HTTP request → v2 event → authorizer → function.

Routes, the authorizer and its cache TTL come from template.yaml. Responses follow the HTTP API
payload 2.0 rules; gateway-made errors use API Gateway's own bodies ({"message": ...}).
"""

from __future__ import annotations

import base64
import json
import re
import threading
import time
import uuid
from collections.abc import Callable
from datetime import UTC, datetime
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from roomcast_dev.functions import FunctionError
from roomcast_dev.template import LOCAL_ACCOUNT_ID, Authorizer, Route

# API Gateway HTTP API limits.
MAX_PAYLOAD_BYTES = 10 * 1024 * 1024
MAX_HEADER_BYTES = 10 * 1024  # request line and headers together
IDLE_TIMEOUT_SECONDS = 30  # a client that stops sending mid-request is cut off, as API Gateway does
TEXT_CONTENT_TYPES = (
    "text/",
    "application/json",
    "application/xml",
    "application/javascript",
    "+json",
    "+xml",
)

Invoke = Callable[[str, dict[str, Any]], Any]


class _CompiledRoute:
    def __init__(self, route: Route) -> None:
        self.route = route
        pattern = ""
        self.literal_segments = 0
        self.greedy = False
        for segment in route.path.strip("/").split("/"):
            if segment.endswith("+}"):
                pattern += f"/(?P<{segment[1:-2]}>.+)"
                self.greedy = True
            elif segment.startswith("{"):
                pattern += f"/(?P<{segment[1:-1]}>[^/]+)"
            elif segment:
                pattern += "/" + re.escape(segment)
                self.literal_segments += 1
        self.regex = re.compile(f"^{pattern or '/'}$")

    @property
    def route_key(self) -> str:
        return f"{self.route.method} {self.route.path}"

    def specificity(self) -> tuple[int, int, int]:
        # API Gateway prefers exact paths, then fewer greedy variables, then an explicit method over ANY.
        return (self.literal_segments, 0 if self.greedy else 1, 0 if self.route.method == "ANY" else 1)


class Gateway:
    def __init__(
        self,
        routes: list[Route],
        authorizer: Authorizer | None,
        invoke: Invoke,
        host: str = "127.0.0.1",
        port: int = 0,
    ) -> None:
        self._routes = [_CompiledRoute(r) for r in routes]
        self._authorizer = authorizer
        self._invoke = invoke
        self._auth_cache: dict[str, tuple[float, dict[str, Any]]] = {}
        self._auth_cache_lock = threading.Lock()
        gateway = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            server_version = "roomcast-local-gateway"
            timeout = IDLE_TIMEOUT_SECONDS

            def __getattr__(self, name: str) -> Any:
                # Every method (TRACE, PROPFIND, ...) is routed like GET: an ANY route may serve it,
                # and an unmatched one gets API Gateway's JSON 404 instead of http.server's HTML 501.
                if name.startswith("do_"):
                    return lambda: gateway._serve(self)
                raise AttributeError(name)

            def parse_request(self) -> bool:
                if not super().parse_request():
                    return False
                header_bytes = len(self.requestline) + sum(
                    len(name) + len(value) + 4 for name, value in self.headers.items()
                )
                if header_bytes > MAX_HEADER_BYTES:
                    self.send_error(HTTPStatus.REQUEST_HEADER_FIELDS_TOO_LARGE)
                    return False
                return True

            def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
                # http.server's own refusals (bad request line, header too long, ...) as JSON.
                status = HTTPStatus(code)
                self.close_connection = True
                if self.request_version == "HTTP/0.9":  # unparsable version: still answer with a status line
                    self.request_version = "HTTP/1.1"
                gateway._reply_message(self, status, _message(status))

            def log_message(self, format: str, *args: Any) -> None:
                return

        self._server = ThreadingHTTPServer((host, port), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, name="gateway", daemon=True)

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def clear_authorizer_cache(self) -> None:
        with self._auth_cache_lock:
            self._auth_cache.clear()

    # -- request handling -------------------------------------------------------------------------

    def _match(self, method: str, path: str) -> tuple[_CompiledRoute, dict[str, str]] | None:
        candidates = []
        for compiled in self._routes:
            if compiled.route.method not in ("ANY", method):
                continue
            found = compiled.regex.match(path)
            if found:
                candidates.append((compiled, found.groupdict()))
        if not candidates:
            return None
        return max(candidates, key=lambda pair: pair[0].specificity())

    def _serve(self, request: BaseHTTPRequestHandler) -> None:
        started = time.time()
        parts = urlsplit(request.path)
        try:
            body = _read_body(request)
        except _BodyError as refused:
            request.close_connection = True
            self._reply_message(request, refused.status, _message(refused.status))
            return
        matched = self._match(request.command, parts.path)
        if matched is None:
            self._reply_message(request, HTTPStatus.NOT_FOUND, "Not Found")
            return
        compiled, path_parameters = matched
        event = self._event(request, compiled, path_parameters, parts.path, parts.query, body, started)
        if compiled.route.authorized and self._authorizer is not None:
            status, context = self._authorize(event)
            if status is not HTTPStatus.OK:
                self._reply_message(
                    request, status, "Unauthorized" if status is HTTPStatus.UNAUTHORIZED else "Forbidden"
                )
                return
            event["requestContext"]["authorizer"] = {"lambda": context}
        try:
            result = self._invoke(compiled.route.function_id, event)
        except FunctionError as error:
            status = (
                HTTPStatus.SERVICE_UNAVAILABLE
                if error.kind == "Timeout"
                else HTTPStatus.INTERNAL_SERVER_ERROR
            )
            print(f"[gateway] {compiled.route.function_id} failed: {error}\n{error.trace}", flush=True)
            self._reply_message(request, status, status.phrase)
            return
        self._reply_result(request, result)

    def _event(
        self,
        request: BaseHTTPRequestHandler,
        compiled: _CompiledRoute,
        path_parameters: dict[str, str],
        path: str,
        query: str,
        body: bytes,
        started: float,
    ) -> dict[str, Any]:
        headers: dict[str, str] = {}
        for name, value in request.headers.items():
            key = name.lower()
            headers[key] = f"{headers[key]},{value}" if key in headers else value
        query_parameters: dict[str, str] = {}
        for name, value in parse_qsl(query, keep_blank_values=True):
            query_parameters[name] = (
                f"{query_parameters[name]},{value}" if name in query_parameters else value
            )
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
            "routeKey": compiled.route_key,
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
                "routeKey": compiled.route_key,
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

    def _authorize(self, event: dict[str, Any]) -> tuple[HTTPStatus, dict[str, Any]]:
        assert self._authorizer is not None
        identity = [event["headers"].get(name) for name in self._authorizer.identity_headers]
        if any(value is None or value == "" for value in identity):
            return HTTPStatus.UNAUTHORIZED, {}
        cache_key = "\n".join(str(v) for v in identity)
        now = time.monotonic()
        with self._auth_cache_lock:
            cached = self._auth_cache.get(cache_key)
        if cached is not None and cached[0] > now:
            return HTTPStatus.OK, cached[1]
        authorizer_event = {
            **{k: v for k, v in event.items() if k not in ("body", "isBase64Encoded")},
            "type": "REQUEST",
            "routeArn": f"arn:aws:execute-api:local:{LOCAL_ACCOUNT_ID}:local/$default/{event['routeKey']}",
            "identitySource": identity,
        }
        try:
            response = self._invoke(self._authorizer.function_id, authorizer_event)
        except FunctionError as error:
            print(f"[gateway] authorizer failed: {error}\n{error.trace}", flush=True)
            return HTTPStatus.INTERNAL_SERVER_ERROR, {}
        if not isinstance(response, dict) or response.get("isAuthorized") is not True:
            return HTTPStatus.FORBIDDEN, {}
        context = response.get("context") or {}
        if self._authorizer.cache_ttl_seconds > 0:
            with self._auth_cache_lock:
                self._auth_cache[cache_key] = (now + self._authorizer.cache_ttl_seconds, context)
        return HTTPStatus.OK, context

    # -- responses ----------------------------------------------------------------------------------

    @staticmethod
    def _send(
        request: BaseHTTPRequestHandler,
        status: int,
        headers: dict[str, str],
        body: bytes,
        cookies: list[str] | tuple[str, ...] = (),
    ) -> None:
        request.send_response(status)
        for cookie in cookies:
            request.send_header("set-cookie", cookie)
        for name, value in headers.items():
            if name.lower() not in ("content-length", "connection", "transfer-encoding"):
                request.send_header(name, value)
        request.send_header("content-length", str(len(body)))
        if request.close_connection:
            request.send_header("connection", "close")
        request.end_headers()
        if request.command != "HEAD":
            request.wfile.write(body)

    def _reply_message(self, request: BaseHTTPRequestHandler, status: int, message: str) -> None:
        body = json.dumps({"message": message}).encode()
        self._send(request, status, {"content-type": "application/json"}, body)

    def _reply_result(self, request: BaseHTTPRequestHandler, result: Any) -> None:
        """Payload 2.0: a dict with statusCode is a full response; anything else is a JSON 200 body."""
        if not (isinstance(result, dict) and "statusCode" in result):
            self._send(request, 200, {"content-type": "application/json"}, json.dumps(result).encode())
            return
        headers = {str(k): str(v) for k, v in (result.get("headers") or {}).items()}
        for name, values in (result.get("multiValueHeaders") or {}).items():
            headers[str(name)] = ",".join(str(v) for v in values)
        raw_body = result.get("body") or ""
        body = base64.b64decode(raw_body) if result.get("isBase64Encoded") else str(raw_body).encode("utf-8")
        self._send(request, int(result["statusCode"]), headers, body, result.get("cookies") or ())


def _message(status: HTTPStatus) -> str:
    # API Gateway's wording, which predates RFC 9110's "Content Too Large".
    return "Request Entity Too Large" if status is HTTPStatus.REQUEST_ENTITY_TOO_LARGE else status.phrase


class _BodyError(Exception):
    def __init__(self, status: HTTPStatus) -> None:
        super().__init__(status.phrase)
        self.status = status


def _read_body(request: BaseHTTPRequestHandler) -> bytes:
    """The request body by Content-Length or chunked transfer coding, within API Gateway's limit."""
    transfer_coding = (request.headers.get("transfer-encoding") or "").strip().lower()
    if transfer_coding == "chunked":
        return _read_chunked(request)
    if transfer_coding:
        raise _BodyError(HTTPStatus.BAD_REQUEST)  # only chunked is a transfer coding we accept
    declared = request.headers.get_all("content-length") or []
    if not declared:
        return b""
    if len(set(declared)) != 1 or not declared[0].strip().isdigit():
        raise _BodyError(HTTPStatus.BAD_REQUEST)
    length = int(declared[0])
    if length > MAX_PAYLOAD_BYTES:
        raise _BodyError(HTTPStatus.REQUEST_ENTITY_TOO_LARGE)
    body = request.rfile.read(length)
    if len(body) != length:
        raise _BodyError(HTTPStatus.BAD_REQUEST)
    return body


def _read_chunked(request: BaseHTTPRequestHandler) -> bytes:
    body = bytearray()
    while True:
        size_line = request.rfile.readline(1026).split(b";", 1)[0].strip()
        try:
            size = int(size_line, 16)
        except ValueError:
            raise _BodyError(HTTPStatus.BAD_REQUEST) from None
        if size < 0:
            raise _BodyError(HTTPStatus.BAD_REQUEST)
        if len(body) + size > MAX_PAYLOAD_BYTES:
            raise _BodyError(HTTPStatus.REQUEST_ENTITY_TOO_LARGE)
        if size == 0:
            while request.rfile.readline(8194).strip():  # trailers, ignored
                pass
            return bytes(body)
        chunk = request.rfile.read(size)
        if len(chunk) != size or request.rfile.read(2) != b"\r\n":
            raise _BodyError(HTTPStatus.BAD_REQUEST)
        body += chunk
