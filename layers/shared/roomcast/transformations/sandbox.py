"""Running a transformation: a fresh V8 isolate per run (mini-racer), never Python's ``eval``.

- Each run gets its own isolate, closed after it: nothing one run (or one tenant) leaves in its
  globals reaches another. An isolate costs about 3 ms to make.
- Its source's top level and then ``handler`` run under one time limit (``TIME_LIMIT_MS``, wall
  clock: the CPU time cannot exceed it) and a hard heap limit (``MEMORY_LIMIT_BYTES``); past
  either V8 stops the run.
- The isolate has no network, file system or modules: only the JavaScript language (mini-racer
  adds no Node or browser APIs but timers).
- At most ``MAX_RUNS_AT_ONCE`` isolates live at once in a container, so ten deliveries of a batch
  cannot hold ten heaps' worth of memory.
- The handler's value crosses back as JSON text, read strictly (roomcast.transformations.shape).

V8 is loaded on the first run (tens of milliseconds), not at a function's cold start."""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from roomcast.platform import InvalidRequest
from roomcast.transformations.model import (
    MAX_SOURCE_BYTES,
    MEMORY_LIMIT_BYTES,
    TIME_LIMIT_MS,
    TransformationFailed,
    Transformed,
)
from roomcast.transformations.shape import WebhookShape, read_output

if TYPE_CHECKING:
    from py_mini_racer import MiniRacer

MAX_RUNS_AT_ONCE = 4
_RUNS = threading.BoundedSemaphore(MAX_RUNS_AT_ONCE)
_MAX_REASON_CHARS = 300
# Calls handler with the webhook and hands its value back as JSON (undefined: the webhook itself,
# changed in place, as the peers' handlers may also do).
_CALL = (
    "(function (webhook) {{ const returned = handler(webhook);"
    " return JSON.stringify(returned === undefined ? webhook : returned); }})(JSON.parse({given}))"
)
_IS_FUNCTION = "typeof handler === 'function'"
_ERROR_NAME = re.compile(r"\b[A-Za-z]*Error:")


class InvalidTransformation(InvalidRequest):
    """A source refused on create, PATCH or dry run (400 naming ``transformation``)."""

    def __init__(self, problem: str) -> None:
        super().__init__(
            f"transformation {problem}",
            code="invalid_transformation",
            details=[{"field": "body.transformation", "problem": problem, "type": "invalid_transformation"}],
        )


def check_source(source: str) -> None:
    """Refuse a source that is too long, does not compile, loops or throws at its top level, or
    does not define ``function handler``."""
    if len(source.encode("utf-8")) > MAX_SOURCE_BYTES:
        raise InvalidTransformation(f"is over {MAX_SOURCE_BYTES} bytes (UTF-8)")
    with _RUNS:
        racer = _isolate()
        try:
            _load(racer, source)
            if racer.eval(_IS_FUNCTION, timeout_sec=TIME_LIMIT_MS / 1000) is not True:
                raise TransformationFailed("does not define function handler(webhook)")
        except TransformationFailed as failed:
            raise InvalidTransformation(str(failed).removeprefix("transformation ")) from failed
        finally:
            racer.close()


def run_transformation(
    source: str, given: WebhookShape, *, time_limit_ms: int = TIME_LIMIT_MS
) -> Transformed:
    """``handler(webhook)`` on ``given``; TransformationFailed says why a run came to nothing.
    ``time_limit_ms``: deliveries and dry runs take the default; a test of the memory limit alone
    gives more, so that a busy machine's slowness cannot stop the run first."""
    with _RUNS:
        racer = _isolate()
        try:
            started = time.monotonic()
            _load(racer, source, time_limit_ms)
            left_s = time_limit_ms / 1000 - (time.monotonic() - started)
            call = _CALL.format(given=json.dumps(json.dumps(given.to_input())))
            run = lambda: racer.eval(call, timeout_sec=max(left_s, 0.001))  # noqa: E731
            text = _guarded(racer, run, time_limit_ms)
        finally:
            racer.close()
    if not isinstance(text, str):
        raise TransformationFailed("handler did not return an object")
    return read_output(text, given)


def _load(racer: MiniRacer, source: str, time_limit_ms: int = TIME_LIMIT_MS) -> None:
    _guarded(racer, lambda: racer.eval(source, timeout_sec=time_limit_ms / 1000), time_limit_ms)


def _isolate() -> MiniRacer:
    from py_mini_racer import MiniRacer

    racer = MiniRacer()
    racer.set_hard_memory_limit(MEMORY_LIMIT_BYTES)
    return racer


def _guarded[T](racer: MiniRacer, run: Callable[[], T], time_limit_ms: int = TIME_LIMIT_MS) -> T:
    from py_mini_racer import JSEvalException, JSOOMException, JSParseException, JSTimeoutException

    try:
        return run()
    except JSTimeoutException as error:
        _settle(racer)
        raise TransformationFailed(f"ran past its {time_limit_ms} ms limit") from error
    except JSOOMException as error:
        raise TransformationFailed(f"ran past its {MEMORY_LIMIT_BYTES // 2**20} MiB memory limit") from error
    except JSParseException as error:
        raise TransformationFailed(f"does not compile: {_first_line(error)}") from error
    except JSEvalException as error:
        raise TransformationFailed(f"threw: {_first_line(error)}") from error


def _settle(racer: MiniRacer) -> None:
    """Wait for V8 to finish stopping a run it timed out (a moment): its late answer would
    otherwise reach an isolate already closed, which mini-racer reports as an ignored error."""
    try:
        racer.eval("0", timeout_sec=1)
    except Exception:  # the isolate is closed next either way
        return


def _first_line(error: Exception) -> str:
    """V8's message without the source excerpt and stack it adds (``<anonymous>:1: Error: boom``)."""
    lines = [line for line in str(error).splitlines() if line.strip()]
    first = lines[0] if lines else type(error).__name__
    named = _ERROR_NAME.search(first)
    if named is not None:
        first = first[named.start() :]
    return first[:_MAX_REASON_CHARS]
