"""Lambda's Extensions API on loopback, for a local function's process (the local stack's workers)
and for the benches and tests that run a handler in their own process: what an internal extension
(a thread of the function's process, roomcast.platform.after_answer) registers with and waits on.

What it keeps of Lambda's (docs/decisions/0052-work-after-the-answer.md): registration during the
init only (refused once an invocation has begun), an identifier per extension, an INVOKE event
(``requestId``, ``deadlineMs``) at each invocation for every extension registered for it, the
init done when every extension has asked for its first event, an invocation over when every
extension has asked for the next one. ``close`` sends SHUTDOWN, so the threads end (Lambda sends
it to external extensions only; an internal one's process is simply frozen and later killed)."""

from __future__ import annotations

import json
import threading
import time
import uuid
from collections import deque
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

_PREFIX = "/2020-01-01/extension"


class _Registered:
    """One extension: the event types it registered for, the events waiting for it, how many it
    asked for and how many it got."""

    def __init__(self, name: str, events: frozenset[str]) -> None:
        self.name = name
        self.events_wanted = events
        self.events: deque[dict[str, Any]] = deque()
        self.asked = 0
        self.delivered = 0

    @property
    def idle(self) -> bool:
        """It asked for an event since the last one it got, and none is waiting: done."""
        return self.asked > self.delivered and not self.events


class LocalExtensionsApi:
    """The API of one function's process; ``address`` is what ``AWS_LAMBDA_RUNTIME_API`` holds."""

    def __init__(self, function_name: str = "local") -> None:
        self.function_name = function_name
        self._condition = threading.Condition()
        self._extensions: dict[str, _Registered] = {}
        self._invoked = False  # registration is refused from the first invocation on
        self._closed = False
        api = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:
                api._register(self)

            def do_GET(self) -> None:
                api._next(self)

            def log_message(self, format: str, *args: Any) -> None:
                return

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, name="extensions-api", daemon=True)
        self._thread.start()

    @property
    def address(self) -> str:
        port = self._server.server_address[1]
        return f"127.0.0.1:{port}"

    @property
    def registered(self) -> list[str]:
        with self._condition:
            return [extension.name for extension in self._extensions.values()]

    def wait_until_ready(self, timeout_seconds: float | None) -> bool:
        """Every registered extension asked for its first event (Lambda's init is over then)."""
        return self._wait_until_all_idle(timeout_seconds)

    def begin_invocation(self, request_id: str, deadline_ms: int, function_arn: str = "") -> None:
        """Give every extension registered for INVOKE events one."""
        event = {
            "eventType": "INVOKE",
            "requestId": request_id,
            "deadlineMs": deadline_ms,
            "invokedFunctionArn": function_arn,
            "tracing": {"type": "X-Amzn-Trace-Id", "value": ""},
        }
        with self._condition:
            self._invoked = True
            for extension in self._extensions.values():
                if "INVOKE" in extension.events_wanted:
                    extension.events.append(dict(event))
            self._condition.notify_all()

    def wait_until_done(self, timeout_seconds: float | None) -> bool:
        """Every registered extension asked for its next event: the invocation is over."""
        return self._wait_until_all_idle(timeout_seconds)

    def close(self) -> None:
        """SHUTDOWN to every extension waiting, then stop serving."""
        with self._condition:
            self._closed = True
            for extension in self._extensions.values():
                extension.events.append(
                    {"eventType": "SHUTDOWN", "shutdownReason": "spindown", "deadlineMs": 0}
                )
            self._condition.notify_all()
        self._server.shutdown()
        self._server.server_close()

    def _wait_until_all_idle(self, timeout_seconds: float | None) -> bool:
        give_up_at = None if timeout_seconds is None else time.monotonic() + timeout_seconds
        with self._condition:
            while not all(extension.idle for extension in self._extensions.values()):
                remaining = None if give_up_at is None else give_up_at - time.monotonic()
                if remaining is not None and remaining <= 0:
                    return False
                self._condition.wait(remaining)
            return True

    def _register(self, request: BaseHTTPRequestHandler) -> None:
        body = request.rfile.read(int(request.headers.get("Content-Length") or 0))
        name = request.headers.get("Lambda-Extension-Name", "")
        try:
            events = json.loads(body or b"{}").get("events", [])
        except (ValueError, AttributeError):
            events = None
        if request.path != f"{_PREFIX}/register" or not name or not isinstance(events, list):
            return _answer(request, 400, {"errorType": "InvalidRequest", "errorMessage": "bad registration"})
        with self._condition:
            if self._invoked or self._closed:
                return _answer(
                    request,
                    403,
                    {"errorType": "Extension.Forbidden", "errorMessage": "registration is for the init only"},
                )
            identifier = str(uuid.uuid4())
            self._extensions[identifier] = _Registered(name, frozenset(map(str, events)))
        body_out = {"functionName": self.function_name, "functionVersion": "$LATEST", "handler": ""}
        _answer(request, 200, body_out, {"Lambda-Extension-Identifier": identifier})

    def _next(self, request: BaseHTTPRequestHandler) -> None:
        identifier = request.headers.get("Lambda-Extension-Identifier", "")
        with self._condition:
            extension = self._extensions.get(identifier)
            if request.path != f"{_PREFIX}/event/next" or extension is None:
                return _answer(
                    request, 403, {"errorType": "Extension.Unknown", "errorMessage": "unknown extension"}
                )
            extension.asked += 1
            self._condition.notify_all()
            while not extension.events:
                self._condition.wait()
            event = extension.events.popleft()
            extension.delivered += 1
        _answer(request, 200, event, {"Lambda-Extension-Event-Identifier": str(uuid.uuid4())})


def _answer(
    request: BaseHTTPRequestHandler, status: int, body: dict[str, Any], headers: dict[str, str] | None = None
) -> None:
    data = json.dumps(body).encode()
    request.send_response(status)
    request.send_header("Content-Type", "application/json")
    request.send_header("Content-Length", str(len(data)))
    for name, value in (headers or {}).items():
        request.send_header(name, value)
    request.end_headers()
    request.wfile.write(data)
