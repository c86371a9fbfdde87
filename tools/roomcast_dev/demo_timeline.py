"""``make demo``'s output: lines stamped with the seconds since publish, and the small formats
every part of the demo shares (short ids, seconds, the API's timestamps)."""

from __future__ import annotations

import threading
import time
from datetime import datetime
from typing import TextIO


def short(identifier: str, keep: int = 12) -> str:
    return identifier if len(identifier) <= keep else identifier[:keep] + "…"


def epoch_of(iso: str) -> float:
    return datetime.fromisoformat(iso).timestamp()


def seconds(value_s: float) -> str:
    return f"{value_s:.1f} s"


class Timeline:
    """Lines stamped with the seconds since publish, printed as they happen, from any thread."""

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self.t0: float | None = None  # epoch seconds of publishedAt
        self._lock = threading.Lock()

    def say(self, text: str = "") -> None:
        with self._lock:
            self.out.write(text + "\n")
            self.out.flush()

    def rel(self, epoch_s: float) -> float:
        return epoch_s - (self.t0 or epoch_s)

    def stamp(self, epoch_s: float) -> str:
        return f"{'+' + format(self.rel(epoch_s), '.2f'):>7} s"

    def emit(self, who: str, text: str, at: float | None = None) -> None:
        with self._lock:
            when = time.time() if at is None else at
            self.out.write(f"  {self.stamp(when)}  {who:<7}  {text}\n")
            self.out.flush()
