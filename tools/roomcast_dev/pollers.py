"""What the local event source mappings share: threads that poll until the stack stops, and a
pause for the emulator's resets (a reset deletes the queues and tables a poller reads)."""

from __future__ import annotations

import logging
import sys
import threading
import time
import traceback
from typing import Any

# Diagnostics of the local stack's background threads: logged, not printed, so that they reach
# `make run`'s terminal (logging is set up there) and pytest's log capture, never a test's stdout.
_log = logging.getLogger(__name__)

PAUSED_SLEEP_SECONDS = 0.05


class Poller:
    """``threads`` threads that each open their clients once (``_open``) and then take one step
    after another (``_step``) until stopped. A step's error is logged and followed by
    ``retry_seconds`` of rest, unless the poller is paused (a reset ended the call) or stopping."""

    kind = "poller"  # the log lines' and thread names' prefix
    retry_seconds = 0.5

    def __init__(self, function_id: str, threads: int, join_seconds: float) -> None:
        self.function_id = function_id
        self.invocations = 0
        self.last_error = ""  # the last step's error, for a report on a poller that stopped moving
        self._thread_count = threads
        self._join_seconds = join_seconds
        self._stopping = threading.Event()
        self._paused = threading.Event()
        self._threads: list[threading.Thread] = []

    def start(self) -> None:
        for index in range(self._thread_count):
            name = f"{self.kind}-{self.function_id}-{index}"
            thread = threading.Thread(target=self._run, name=name, daemon=True)
            thread.start()
            self._threads.append(thread)

    def request_stop(self) -> None:
        """Stop polling after the current call (the stack then ends the calls that wait)."""
        self._stopping.set()

    def stop(self) -> None:
        self._stopping.set()
        for thread in self._threads:
            thread.join(timeout=self._join_seconds)

    @property
    def running(self) -> bool:
        """Whether any of its threads is still polling."""
        return any(thread.is_alive() for thread in self._threads)

    def where(self, depth: int = 6) -> str:
        """What its live threads are doing now (their innermost ``depth`` frames): a poller that
        stopped moving shows whether it waits on a call or polls and finds nothing."""
        frames = sys._current_frames()
        lines = []
        for thread in self._threads:
            frame = frames.get(thread.ident or -1)
            if frame is not None:
                stack = traceback.extract_stack(frame)[-depth:]
                lines.append(
                    " <- ".join(
                        f"{f.name} ({f.filename.rpartition('/')[2]}:{f.lineno})" for f in reversed(stack)
                    )
                )
        return "; ".join(lines) or "no live thread"

    def pause(self) -> None:
        self._paused.set()

    def resume(self) -> None:
        self._paused.clear()

    def _open(self) -> Any:
        """What one thread polls with (its clients), made once per thread."""
        raise NotImplementedError

    def _step(self, clients: Any) -> None:
        """One poll and what it found."""
        raise NotImplementedError

    def _after_error(self) -> None:
        """Forget what an error may have made stale (a step failed)."""

    def _run(self) -> None:
        clients = self._open()
        while not self._stopping.is_set():
            if self._paused.is_set():
                time.sleep(PAUSED_SLEEP_SECONDS)
                continue
            try:
                self._step(clients)
            except Exception as error:  # a reset deleted the queue or table, the endpoint restarted, ...
                if self._paused.is_set():
                    continue  # the source is made again, then polled
                self.last_error = f"{time.strftime('%H:%M:%S')} {type(error).__name__}: {error}"
                if not self._stopping.is_set():
                    _log.warning(f"[{self.kind}] {self.function_id}: {type(error).__name__}: {error}")
                    self._after_error()
                    time.sleep(self.retry_seconds)
