"""A real webhook receiver on 127.0.0.1 for tests, benchmarks and the demo: a threaded HTTP server
that records every request and answers from a *script*.

A script is a function of the request's number (0 = the first request to that receiver) and the
request, returning a ``Reply``; scripts can be swapped while the receiver runs (a subscriber that
comes back to health). Readers wait for requests on a condition with a timeout, never with fixed
sleeps. ``clock`` stamps arrivals (``time.monotonic`` by default; ``time.time`` under simulated
time)::

    with WebhookReceiver(fail_first(3, status=500)) as receiver:
        ... subscribe receiver.url("/hook"), publish ...
        first_four = receiver.wait_for_requests(4, timeout_seconds=20)
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any

MAX_BODY_BYTES = 1024 * 1024  # more than a webhook body can be (256 KB payload plus the envelope)


@dataclass(frozen=True)
class RecordedRequest:
    """One request as the receiver saw it; ``arrived_at`` and ``answered_at`` come from its clock."""

    number: int  # 0 = the first request this server received
    arrived_at: float
    method: str
    path: str
    headers: Mapping[str, str]  # names lower-cased
    body: bytes
    answered_at: float | None = None  # set once the reply has been sent
    reply: Reply | None = None  # what the script answered, once sent

    @property
    def json(self) -> Any:
        """The body parsed as JSON, or None when it is not JSON."""
        try:
            return json.loads(self.body)
        except ValueError:
            return None


@dataclass(frozen=True)
class Reply:
    status: int = 200
    headers: Mapping[str, str] = field(default_factory=dict)
    body: bytes = b""
    delay_seconds: float = 0.0  # wait this long before answering (a slow endpoint)


Script = Callable[[int, RecordedRequest], Reply]


def always(reply: Reply | None = None) -> Script:
    """Every request gets the same answer (200 with no body by default)."""
    answer = reply or Reply()
    return lambda number, request: answer


def fail_first(
    count: int,
    status: int = 500,
    retry_after: str | None = None,
    then: Reply | None = None,
    headers: Mapping[str, str] | None = None,
) -> Script:
    """The first ``count`` requests get ``status`` (with ``Retry-After`` and ``headers`` when given),
    every later one ``then`` (200 by default)."""
    failure_headers = dict(headers or {})
    if retry_after is not None:
        failure_headers["Retry-After"] = retry_after
    failure = Reply(status, failure_headers)
    success = then or Reply()
    return lambda number, request: failure if number < count else success


def statuses(*codes: int) -> Script:
    """Answer the n-th request with the n-th status; the last one repeats."""
    return lambda number, request: Reply(codes[min(number, len(codes) - 1)])


def per_path(scripts: Mapping[str, Script], default: Script | None = None) -> Script:
    """A script per request path; each sees its own request numbers (0 = the first to that path)."""
    fallback = default or always(Reply(404))
    counts: dict[str, int] = {}
    lock = threading.Lock()

    def script(number: int, request: RecordedRequest) -> Reply:
        with lock:
            path_number = counts.get(request.path, 0)
            counts[request.path] = path_number + 1
        return scripts.get(request.path, fallback)(path_number, request)

    return script


class _Handler(BaseHTTPRequestHandler):
    server: _RecordingHttpServer

    def _handle(self) -> None:
        owner = self.server.owner
        arrived_at = owner.clock()
        try:
            length = min(max(int(self.headers.get("Content-Length") or 0), 0), MAX_BODY_BYTES)
        except ValueError:
            length = 0
        body = self.rfile.read(length) if length else b""
        request, reply = owner.record(
            arrived_at, self.command, self.path, {k.lower(): v for k, v in self.headers.items()}, body
        )
        if reply.delay_seconds:
            owner.stopping.wait(reply.delay_seconds)  # cut short when the server stops
        try:
            self.send_response(reply.status)
            for name, value in reply.headers.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(reply.body)))
            self.end_headers()
            if reply.body:
                self.wfile.write(reply.body)
            self.wfile.flush()
        except OSError:  # the client gave up waiting (its timeout): the request stays unanswered
            return
        owner.answered(request, reply, owner.clock())

    do_POST = do_GET = do_PUT = do_PATCH = do_DELETE = do_HEAD = do_OPTIONS = _handle

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: the recorded requests are the log."""


class _RecordingHttpServer(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False
    request_queue_size = 128  # the default 5 drops SYNs of a burst of deliveries: a 1 s retransmit

    def __init__(self, owner: WebhookReceiver) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.owner = owner


class WebhookReceiver:
    """A webhook receiver on 127.0.0.1 (a free port); ``start()``/``stop()`` or ``with``."""

    def __init__(self, script: Script | None = None, clock: Callable[[], float] = time.monotonic) -> None:
        self._script = script or always()
        self.clock = clock
        self._requests: list[RecordedRequest] = []
        self._changed = threading.Condition()
        self.stopping = threading.Event()
        self._http = _RecordingHttpServer(self)
        self._thread = threading.Thread(
            target=self._http.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    @property
    def port(self) -> int:
        return int(self._http.server_address[1])

    def url(self, path: str = "/hook") -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def start(self) -> WebhookReceiver:
        self._thread.start()
        return self

    def __enter__(self) -> WebhookReceiver:
        return self.start()

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.stop()

    def stop(self) -> None:
        self.stopping.set()
        self._http.shutdown()
        self._http.server_close()
        self._thread.join(timeout=5)

    def respond_with(self, script: Script) -> None:
        """Answer every request from now on from ``script`` (request numbers keep counting)."""
        with self._changed:
            self._script = script

    # -- what the handler threads call --------------------------------------------------------------

    def record(
        self, arrived_at: float, method: str, path: str, headers: dict[str, str], body: bytes
    ) -> tuple[RecordedRequest, Reply]:
        with self._changed:
            request = RecordedRequest(len(self._requests), arrived_at, method, path, headers, body)
            self._requests.append(request)
            script = self._script
            self._changed.notify_all()
        return request, script(request.number, request)

    def answered(self, request: RecordedRequest, reply: Reply, answered_at: float) -> None:
        with self._changed:
            self._requests[request.number] = replace(request, answered_at=answered_at, reply=reply)
            self._changed.notify_all()

    # -- what tests read ----------------------------------------------------------------------------

    @property
    def requests(self) -> list[RecordedRequest]:
        """Every request so far, in arrival order (a copy)."""
        with self._changed:
            return list(self._requests)

    def wait_for_requests(self, count: int, timeout_seconds: float) -> list[RecordedRequest]:
        """The first ``count`` requests, once they have arrived; AssertionError after the timeout."""
        with self._changed:
            if not self._changed.wait_for(lambda: len(self._requests) >= count, timeout_seconds):
                raise AssertionError(
                    f"{self.url('')} got {len(self._requests)} requests within {timeout_seconds} s, "
                    f"expected {count}: {[(r.method, r.path) for r in self._requests]}"
                )
            return self._requests[:count]

    def wait_for_request(self, number: int, timeout_seconds: float) -> RecordedRequest:
        """Request ``number`` (0 = the first), once it has arrived."""
        return self.wait_for_requests(number + 1, timeout_seconds)[number]

    def wait_for_answer(self, number: int, timeout_seconds: float) -> RecordedRequest:
        """Request ``number`` once its reply has been sent (``answered_at`` is set)."""
        deadline = time.monotonic() + timeout_seconds
        self.wait_for_request(number, timeout_seconds)
        with self._changed:
            answered = self._changed.wait_for(
                lambda: self._requests[number].answered_at is not None, max(0.0, deadline - time.monotonic())
            )
            if not answered:
                raise AssertionError(f"request {number} was not answered within {timeout_seconds} s")
            return self._requests[number]
