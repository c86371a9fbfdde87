"""A local stand-in for API Gateway HTTP API: HTTP request → v2 event → authorizer → function.

Routes, the authorizer and its cache TTL come from template.yaml. This module is the HTTP server;
the API Gateway behaviour is in ``gateway_routes`` (which route serves a request),
``gateway_authorizer`` (the Lambda authorizer and its cache) and ``gateway_payload`` (payload
format 2.0: the event, and the answer made of a function's result). Requests are read strictly
(``gateway_framing``): every refusal closes the connection; well-formed requests keep it alive.
"""

from __future__ import annotations

import logging
import socket
import sys
import threading
import time
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

from roomcast_dev.functions import FunctionError
from roomcast_dev.gateway_authorizer import Invoke, LambdaAuthorizer
from roomcast_dev.gateway_framing import (
    BodyError,
    HeadTooLarge,
    IncomingRequests,
    RequestTimeout,
    read_body,
    well_formed,
)
from roomcast_dev.gateway_payload import (
    GatewayResponse,
    function_response,
    message_response,
    request_event,
    status_message,
)
from roomcast_dev.gateway_routes import RouteTable
from roomcast_dev.template import Authorizer, Route

# Diagnostics of the local stack's background threads: logged, not printed, so that they reach
# `make run`'s terminal (logging is set up there) and pytest's log capture, never a test's stdout.
_log = logging.getLogger(__name__)

# Local choices: AWS documents no client-side timeouts for HTTP APIs.
IDLE_TIMEOUT_SECONDS = 30.0  # a kept-alive connection that starts no new request is closed quietly
READ_TIMEOUT_SECONDS = 30.0  # from a request's first byte to its last (head and body), else 408
LINGER_SECONDS = 2.0  # unread input drained before closing, so that a reset does not destroy the answer


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
        self._routes = RouteTable(routes)
        self._authorizer = None if authorizer is None else LambdaAuthorizer(authorizer, invoke)
        self._invoke = invoke
        gateway = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            server_version = "roomcast-local-gateway"
            timeout = idle_timeout
            incoming: IncomingRequests

            def setup(self) -> None:
                super().setup()
                # An answer leaves as two writes, head then body. With Nagle's algorithm on, the body
                # waited for the client's delayed ACK of the head: 40 ms on every keep-alive request.
                self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                self.rfile.close()  # replaced by a reader that enforces the limits
                self.incoming = IncomingRequests(self.connection, idle_timeout)
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
                except HeadTooLarge:
                    refusal = HTTPStatus.REQUEST_HEADER_FIELDS_TOO_LARGE
                except RequestTimeout:
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
                if not well_formed(head, self.request_version, self.headers):
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
                    body = read_body(self.headers, self.request_version, self.incoming)
                except BodyError as refused:
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
                _send(self, message_response(status, status_message(status)))

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
        if self._authorizer is not None:
            self._authorizer.clear_cache()

    def _serve(self, request: BaseHTTPRequestHandler, body: bytes) -> None:
        started = time.time()
        parts = urlsplit(request.path)
        matched = self._routes.match(request.command, parts.path)
        if matched is None:
            _send(request, message_response(HTTPStatus.NOT_FOUND, "Not Found"))
            return
        compiled, path_parameters = matched
        event = request_event(
            request, compiled.route_key, path_parameters, parts.path, parts.query, body, started
        )
        if compiled.route.authorized and self._authorizer is not None:
            status, context = self._authorizer.authorize(event)
            if status is not HTTPStatus.OK:
                refusal = "Unauthorized" if status is HTTPStatus.UNAUTHORIZED else "Forbidden"
                _send(request, message_response(status, refusal))
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
            _send(request, message_response(status, status.phrase))
            return
        _send(request, function_response(result))


def _send(request: BaseHTTPRequestHandler, response: GatewayResponse) -> None:
    request.send_response(response.status)
    for cookie in response.cookies:
        request.send_header("set-cookie", cookie)
    for name, value in response.headers.items():
        if name.lower() not in ("content-length", "connection", "transfer-encoding"):
            request.send_header(name, value)
    request.send_header("content-length", str(len(response.body)))
    if request.close_connection:
        request.send_header("connection", "close")
    request.end_headers()
    if request.command != "HEAD":
        request.wfile.write(response.body)


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
