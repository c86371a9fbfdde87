"""Work a function's caller need not wait for, done after the answer has gone
(docs/decisions/0052-work-after-the-answer.md).

A handler wrapped in ``answer_first`` collects what its code hands to ``later`` and, as it returns,
gives it to this process's after-answer extension: a thread registered with Lambda's Extensions API
as an internal extension. Lambda sends the runtime's response to the caller as soon as the runtime
posts it, and keeps the execution environment running until every extension asks for its next
event; the thread asks only once the work is done. Without the extension (not on Lambda, the
registration refused, the thread gone) the work runs as the handler returns, before the answer:
work handed over is never dropped by this module, only done later.

Hand over only work whose loss to a crash is already survived: the process may die after the
answer and before the work (the publish's sends-done mark: without it, the publish check sends the
messages again — duplicates, never a loss)."""

from __future__ import annotations

import functools
import json
import queue
import threading
import time
from collections.abc import Callable
from contextvars import ContextVar
from typing import Any

from roomcast.platform.config import SettingsError, load_settings
from roomcast.platform.observability import logger

Work = Callable[[], object]

EXTENSION_NAME = "roomcast-after-answer"
EXTENSIONS_API_VERSION = "2020-01-01"
# How long the extension waits for an invocation's hand-over when the INVOKE event names no
# deadline (Lambda's always does: the function's timeout).
_NO_DEADLINE_WAIT_SECONDS = 900.0
# Tries of the Extensions API's /event/next before the thread gives up (it cannot go on without).
_NEXT_TRIES = 3

_pending: ContextVar[list[Work] | None] = ContextVar("after_answer_pending", default=None)


def later(work: Work) -> None:
    """Do ``work`` after the current invocation's answer, where the platform allows; at once when
    no ``answer_first`` invocation is open in this thread. Its exceptions are logged, never raised."""
    pending = _pending.get()
    if pending is None:
        _do(work)
    else:
        pending.append(work)


def answer_first[Handler: Callable[[Any, Any], Any]](handler: Handler) -> Handler:
    """``handler``, whose ``later`` work is handed to the extension as it returns (or raises)."""

    @functools.wraps(handler)
    def answering_first(event: Any, context: Any) -> Any:
        pending: list[Work] = []
        token = _pending.set(pending)
        try:
            return handler(event, context)
        finally:
            _pending.reset(token)
            _hand_over(str(getattr(context, "aws_request_id", "")), pending)

    return answering_first  # type: ignore[return-value]


class _Extension:
    """The thread registered as an internal extension: for each INVOKE event, it waits for that
    invocation's hand-over, does the work, then asks for the next event (which ends the
    invocation for Lambda)."""

    def __init__(self, runtime_api: str, identifier: str) -> None:
        self._runtime_api = runtime_api
        self._identifier = identifier
        self._handed: queue.SimpleQueue[tuple[str, list[Work]]] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._stopped = False
        self._thread = threading.Thread(target=self._serve, name=EXTENSION_NAME, daemon=True)

    @property
    def running(self) -> bool:
        with self._lock:
            return not self._stopped

    def start(self) -> None:
        self._thread.start()

    def join(self, timeout_seconds: float) -> None:
        self._thread.join(timeout_seconds)

    def hand_over(self, request_id: str, works: list[Work]) -> bool:
        """Queue an invocation's work for the thread; False when the thread is gone."""
        with self._lock:
            if self._stopped:
                return False
            self._handed.put((request_id, works))
            return True

    def _serve(self) -> None:
        try:
            while True:
                event = self._next_event()
                if event.get("eventType") != "INVOKE":  # SHUTDOWN (a local stack's; Lambda's go
                    return  # only to external extensions)
                self._finish(str(event.get("requestId", "")), int(event.get("deadlineMs") or 0))
        except Exception:
            logger.exception("the after-answer extension stopped; work is done before answers now")
        finally:
            with self._lock:
                self._stopped = True
            self._do_what_is_left()

    def _finish(self, request_id: str, deadline_ms: int) -> None:
        """Do the work handed over until this invocation's own (earlier ones' too, if late)."""
        give_up_at = deadline_ms / 1000 if deadline_ms else time.time() + _NO_DEADLINE_WAIT_SECONDS
        while True:
            try:
                handed_id, works = self._handed.get(timeout=max(0.0, give_up_at - time.time()))
            except queue.Empty:
                logger.warning(
                    "no hand-over before the invocation's deadline", extra={"request_id": request_id}
                )
                return
            for work in works:
                _do(work)
            if handed_id == request_id:
                return

    def _do_what_is_left(self) -> None:
        while True:
            try:
                _, works = self._handed.get_nowait()
            except queue.Empty:
                return
            for work in works:
                _do(work)

    def _next_event(self) -> dict[str, Any]:
        problem = ""
        for attempt in range(_NEXT_TRIES):
            if attempt:
                time.sleep(0.05 * attempt)
            try:
                status, _, body = _call(
                    self._runtime_api,
                    "GET",
                    f"/{EXTENSIONS_API_VERSION}/extension/event/next",
                    {"Lambda-Extension-Identifier": self._identifier},
                )
            except OSError as error:
                problem = repr(error)
                continue
            if status == 200:
                event: dict[str, Any] = json.loads(body)
                return event
            problem = f"HTTP {status}: {body[:200]!r}"
        raise RuntimeError(f"the Extensions API's next event failed: {problem}")


_extension: _Extension | None = None
_extension_lock = threading.Lock()


def start_extension(runtime_api: str) -> bool:
    """Register the after-answer extension with the Extensions API at ``runtime_api`` (Lambda's
    ``AWS_LAMBDA_RUNTIME_API``) and start its thread; during the function's init only (Lambda
    refuses a registration later). False, and work is done before answers, when there is no API
    or it refused."""
    global _extension
    with _extension_lock:
        if _extension is not None and _extension.running:
            return True
        if not runtime_api:
            return False
        try:
            status, headers, body = _call(
                runtime_api,
                "POST",
                f"/{EXTENSIONS_API_VERSION}/extension/register",
                {"Lambda-Extension-Name": EXTENSION_NAME, "Content-Type": "application/json"},
                json.dumps({"events": ["INVOKE"]}).encode(),
            )
            identifier = headers.get("lambda-extension-identifier", "")
            if status != 200 or not identifier:
                raise RuntimeError(f"HTTP {status}: {body[:200]!r}")
        except Exception:
            logger.warning(
                "the after-answer extension could not register; work is done before answers", exc_info=True
            )
            return False
        _extension = _Extension(runtime_api, identifier)
        _extension.start()
        return True


def start_as_configured() -> bool:
    """``start_extension`` when the function's settings ask for it (``AFTER_ANSWER_EXTENSION``);
    called at the function's import. Settings that do not validate are left for the first request
    to report, as they were before."""
    try:
        settings = load_settings()
    except SettingsError:
        return False
    return settings.after_answer_extension and start_extension(settings.lambda_runtime_api)


def stop_extension(timeout_seconds: float = 5.0) -> None:
    """Forget the extension once its thread has ended (the API sent SHUTDOWN or went away); for a
    process that outlives its Extensions API (a bench, a test)."""
    global _extension
    with _extension_lock:
        if _extension is not None:
            _extension.join(timeout_seconds)
            _extension = None


def _hand_over(request_id: str, works: list[Work]) -> None:
    extension = _extension
    if extension is not None and extension.hand_over(request_id, works):
        return
    for work in works:
        _do(work)


def _do(work: Work) -> None:
    try:
        work()
    except Exception:
        logger.exception("work done after the answer failed")


def _call(
    runtime_api: str, method: str, path: str, headers: dict[str, str], body: bytes | None = None
) -> tuple[int, dict[str, str], bytes]:
    """One request to the Extensions API (a plain HTTP server on the sandbox's loopback); no
    timeout: /event/next waits as long as the environment waits for its next invocation. Imported
    here: only a process on Lambda needs it (and there botocore imports it anyway)."""
    import http.client

    connection = http.client.HTTPConnection(runtime_api, timeout=None)
    try:
        connection.request(method, path, body=body, headers=headers)
        response = connection.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
    finally:
        connection.close()
