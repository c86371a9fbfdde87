"""A local stand-in for API Gateway HTTP API: HTTP request → v2 event → authorizer → function.

Routes, the authorizer and its cache TTL come from template.yaml. Responses follow the HTTP API
payload 2.0 rules; gateway-made errors use API Gateway's own bodies ({"message": ...}).

HTTP/1.1 framing is read strictly, because an ambiguous request is how requests get smuggled: a
body is framed by one Content-Length or by chunked transfer coding, never both; a malformed or
ambiguous head, Content-Length or chunk is a 400, an oversized head a 431, an oversized body a 413,
and a request that does not arrive whole within the read timeout a 408. Every refusal closes the
connection; well-formed requests keep it alive.
"""

from __future__ import annotations

import base64
import io
import json
import logging
import re
import socket
import sys
import threading
import time
import uuid
from collections.abc import Buffer, Callable
from datetime import UTC, datetime
from email.message import Message
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from roomcast_dev.functions import FunctionError
from roomcast_dev.template import LOCAL_ACCOUNT_ID, Authorizer, Route

# Diagnostics of the local stack's background threads: logged, not printed, so that they reach
# `make run`'s terminal (logging is set up there) and pytest's log capture, never a test's stdout.
_log = logging.getLogger(__name__)

# API Gateway HTTP API quotas (https://docs.aws.amazon.com/apigateway/latest/developerguide/http-api-quotas.html).
MAX_PAYLOAD_BYTES = 10 * 1024 * 1024  # "Payload size: 10 MB"
MAX_HEADER_BYTES = 10240  # "Total combined size of request line and header values: 10240 bytes"
# Local choices: AWS documents no client-side timeouts for HTTP APIs.
IDLE_TIMEOUT_SECONDS = 30.0  # a kept-alive connection that starts no new request is closed quietly
READ_TIMEOUT_SECONDS = 30.0  # from a request's first byte to its last (head and body), else 408
LINGER_SECONDS = 2.0  # unread input drained before closing, so that a reset does not destroy the answer
MAX_CHUNK_LINE_BYTES = 1024  # a chunk-size line with its extensions

_TOKEN = rb"[!#$%&'*+\-.^_`|~0-9A-Za-z]+"
_REQUEST_LINE = re.compile(_TOKEN + rb" [\x21-\x7e]+ HTTP/[0-9]\.[0-9]\r?\n")
# name:value, no whitespace before the colon, no obs-fold, no CR, LF, NUL or other controls in the value.
_FIELD_LINE = re.compile(_TOKEN + rb":[\t\x20-\x7e\x80-\xff]*\r?\n")
_BLANK_LINES = (b"\r\n", b"\n")
_CHUNK_SIZE_LINE = re.compile(rb"([0-9A-Fa-f]+)(?:[ \t]*;[^\r\n]*)?\r\n")
_DIGITS = re.compile(r"[0-9]+")
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
        read_timeout: float = READ_TIMEOUT_SECONDS,
        idle_timeout: float = IDLE_TIMEOUT_SECONDS,
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
            timeout = idle_timeout
            incoming: _Incoming

            def setup(self) -> None:
                super().setup()
                self.rfile.close()  # replaced by a reader that enforces the limits
                self.incoming = _Incoming(self.connection, idle_timeout)
                self.rfile = self.incoming

            def handle_one_request(self) -> None:
                # What an answer needs when the request line is not parsed yet.
                self.requestline, self.request_version, self.command = "", "HTTP/1.1", ""
                if not self.incoming.await_request():
                    self.close_connection = True
                    return
                self.incoming.begin_request(read_timeout)
                try:
                    super().handle_one_request()
                    return
                except _HeadTooLarge:
                    refusal = HTTPStatus.REQUEST_HEADER_FIELDS_TOO_LARGE
                except _RequestTimeout:
                    refusal = HTTPStatus.REQUEST_TIMEOUT
                finally:
                    self.incoming.end_request()
                self.send_error(refusal)

            def parse_request(self) -> bool:
                try:
                    parsed = super().parse_request()
                finally:
                    head = self.incoming.end_head()
                if not parsed:
                    return False
                if not _well_formed(head, self.request_version, self.headers):
                    self.send_error(HTTPStatus.BAD_REQUEST)
                    return False
                return True

            def __getattr__(self, name: str) -> Any:
                # Every method (TRACE, PROPFIND, ...) is routed like GET: an ANY route may serve it,
                # and an unmatched one gets API Gateway's JSON 404 instead of http.server's HTML 501.
                if name.startswith("do_"):
                    return self.dispatch
                raise AttributeError(name)

            def dispatch(self) -> None:
                try:
                    body = _read_body(self.headers, self.request_version, self.incoming)
                except _BodyError as refused:
                    self.incoming.end_request()
                    self.send_error(refused.status)
                    return
                self.incoming.end_request()  # the deadline is for reading: a function has its own
                gateway._serve(self, body)

            def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
                # http.server's own refusals (bad request line, too many headers, ...) and ours, as JSON.
                status = HTTPStatus(code)
                self.close_connection = True
                if self.request_version == "HTTP/0.9":  # unparsable version: still answer with a status line
                    self.request_version = "HTTP/1.1"
                gateway._reply_message(self, status, _message(status))

            def log_message(self, format: str, *args: Any) -> None:
                return

        self._server = _Server((host, port), Handler)
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.1}, name="gateway", daemon=True
        )

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

    def _serve(self, request: BaseHTTPRequestHandler, body: bytes) -> None:
        started = time.time()
        parts = urlsplit(request.path)
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
            _log.warning(f"[gateway] {compiled.route.function_id} failed: {error}\n{error.trace}")
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
            _log.warning(f"[gateway] authorizer failed: {error}\n{error.trace}")
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
        # nosniff as on the functions' answers (roomcast.api.handlers): JSON is never sniffed as HTML.
        body = json.dumps({"message": message}).encode()
        headers = {"content-type": "application/json", "x-content-type-options": "nosniff"}
        self._send(request, status, headers, body)

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


# -- reading requests -------------------------------------------------------------------------------


class _HeadTooLarge(Exception):
    """The request line and header lines passed MAX_HEADER_BYTES."""


class _RequestTimeout(Exception):
    """The request did not arrive whole within the read timeout (not a TimeoutError: http.server
    would swallow that and close without an answer)."""


class _BodyError(Exception):
    def __init__(self, status: HTTPStatus) -> None:
        super().__init__(status.phrase)
        self.status = status


class _Connection(io.RawIOBase):
    """The client's bytes, one recv at a time, each waiting no longer than the request's deadline
    (or the idle timeout between requests): a client that sends slowly cannot hold a thread."""

    def __init__(self, connection: socket.socket, idle_timeout: float) -> None:
        super().__init__()
        self._connection = connection
        self._idle_timeout = idle_timeout
        self.deadline: float | None = None

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Buffer) -> int:
        if self.deadline is None:
            self._connection.settimeout(self._idle_timeout)
            return self._connection.recv_into(memoryview(buffer))
        remaining = self.deadline - time.monotonic()
        if remaining <= 0:
            raise _RequestTimeout
        self._connection.settimeout(remaining)
        try:
            return self._connection.recv_into(memoryview(buffer))
        except TimeoutError:
            raise _RequestTimeout from None

    def stop_deadline(self) -> None:
        self.deadline = None
        self._connection.settimeout(self._idle_timeout)  # also bounds writing the answer


class _Incoming(io.BufferedReader):
    """A connection's input, with API Gateway's limits on each request read from it."""

    def __init__(self, connection: socket.socket, idle_timeout: float) -> None:
        self._connection = _Connection(connection, idle_timeout)
        super().__init__(self._connection)
        self._head: list[bytes] | None = None
        self._head_budget = 0

    def await_request(self) -> bool:
        """Wait up to the idle timeout for the next request's first byte; False when none comes."""
        try:
            return bool(self.peek(1))
        except OSError:  # idle timeout, reset
            return False

    def begin_request(self, read_timeout: float) -> None:
        self._connection.deadline = time.monotonic() + read_timeout
        self._head = []
        self._head_budget = MAX_HEADER_BYTES

    def end_head(self) -> list[bytes]:
        """The raw lines of the head (request line, header lines, blank line) just read."""
        head, self._head = self._head or [], None
        return head

    def end_request(self) -> None:
        self._head = None
        self._connection.stop_deadline()

    def readline(self, size: int | None = -1, /) -> bytes:
        if self._head is None:
            return super().readline(size)
        # Within the head, never read a line past what is left of MAX_HEADER_BYTES (+ a blank line).
        limit = self._head_budget + 2
        line = super().readline(limit if size is None or size < 0 else min(size, limit))
        self._head.append(line)
        if line not in _BLANK_LINES:
            self._head_budget -= len(line)
            if self._head_budget < 0:
                raise _HeadTooLarge
        return line


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    # socketserver's default listen backlog is 5: a burst of clients connecting at once (a load
    # test, racing creates) overflows it and the kernel resets connections. API Gateway takes bursts.
    request_queue_size = 128

    def shutdown_request(self, request: Any) -> None:
        # Closing a socket with unread input makes the kernel reset the connection, which can destroy
        # an answer (a 413, a 431) the client has not read yet: drain what it still sends, for a while.
        try:
            request.shutdown(socket.SHUT_WR)
            deadline = time.monotonic() + LINGER_SECONDS
            while (remaining := deadline - time.monotonic()) > 0:
                request.settimeout(remaining)
                if not request.recv(65536):
                    break
        except OSError:
            pass
        self.close_request(request)

    def handle_error(self, request: Any, client_address: Any) -> None:
        if isinstance(sys.exception(), ConnectionError):  # the client went away: nothing to report
            return
        super().handle_error(request, client_address)


def _well_formed(head: list[bytes], version: str, headers: Message) -> bool:
    """RFC 9112's syntax, which http.server and the email parser are lenient about (a space before
    the colon hides a header, a bare CR splits one in two, obs-fold continues one), and one Host."""
    request_line, *field_lines = head
    if _REQUEST_LINE.fullmatch(request_line) is None:
        return False
    if any(_FIELD_LINE.fullmatch(line) is None for line in field_lines if line not in _BLANK_LINES):
        return False
    hosts = headers.get_all("host") or []
    return len(hosts) == 1 or (not hosts and version == "HTTP/1.0")


def _read_body(headers: Message, version: str, incoming: io.BufferedIOBase) -> bytes:
    """The request body by Content-Length or chunked transfer coding, within API Gateway's limit."""
    codings = [
        coding.strip(" \t").lower()
        for value in headers.get_all("transfer-encoding") or []
        for coding in value.split(",")
    ]
    lengths = headers.get_all("content-length") or []
    if codings:
        # Content-Length beside Transfer-Encoding is the request-smuggling shape: refused, not guessed
        # (RFC 9112 section 6.1); so are other codings, and any transfer coding in HTTP/1.0.
        if lengths or codings != ["chunked"] or version == "HTTP/1.0":
            raise _BodyError(HTTPStatus.BAD_REQUEST)
        return _read_chunked(incoming)
    if not lengths:
        return b""
    values = {value.strip(" \t") for value in lengths}
    if len(values) != 1:
        raise _BodyError(HTTPStatus.BAD_REQUEST)
    (value,) = values
    if _DIGITS.fullmatch(value) is None:  # ASCII digits only: not "-1", "+1", "0x1", "1_0", "²"
        raise _BodyError(HTTPStatus.BAD_REQUEST)
    digits = value.lstrip("0") or "0"
    if len(digits) > len(str(MAX_PAYLOAD_BYTES)) or int(digits) > MAX_PAYLOAD_BYTES:
        raise _BodyError(HTTPStatus.REQUEST_ENTITY_TOO_LARGE)
    length = int(digits)
    body = incoming.read(length)
    if len(body) != length:  # the client closed before sending all of it
        raise _BodyError(HTTPStatus.BAD_REQUEST)
    return body


def _read_chunked(incoming: io.BufferedIOBase) -> bytes:
    body = bytearray()
    while True:
        found = _CHUNK_SIZE_LINE.fullmatch(incoming.readline(MAX_CHUNK_LINE_BYTES + 1))
        if found is None:  # not hex digits (no "0x", sign or space), no CRLF, or too long
            raise _BodyError(HTTPStatus.BAD_REQUEST)
        size = int(found[1], 16)
        if len(body) + size > MAX_PAYLOAD_BYTES:
            raise _BodyError(HTTPStatus.REQUEST_ENTITY_TOO_LARGE)
        if size == 0:
            break
        chunk = incoming.read(size)
        if len(chunk) != size or incoming.read(2) != b"\r\n":
            raise _BodyError(HTTPStatus.BAD_REQUEST)
        body += chunk
    # Trailer fields (ignored) until a blank line, within the header limit.
    budget = MAX_HEADER_BYTES
    while (line := incoming.readline(budget + 2)) != b"\r\n":
        budget -= len(line)
        if budget < 0:
            raise _BodyError(HTTPStatus.REQUEST_HEADER_FIELDS_TOO_LARGE)
        if _FIELD_LINE.fullmatch(line) is None or not line.endswith(b"\r\n"):
            raise _BodyError(HTTPStatus.BAD_REQUEST)
    return bytes(body)
