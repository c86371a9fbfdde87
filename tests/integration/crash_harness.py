"""Crashing the push function at random step boundaries (the crash-injection suites): before and
after its webhook POST, after an SQS re-send, before the event source mapping acknowledges."""

from __future__ import annotations

import importlib
import random
from collections.abc import Callable
from typing import Any

import pytest

from roomcast.messages.sender import EnvelopeSender

BOUNDARIES = ("before the POST", "after the POST", "after the re-send", "before the acknowledgement")


class Crash(BaseException):  # not an Exception: the process dies (powertools catches Exception only)
    """The function's process dies here."""


class Crashes:
    """Each step boundary crashes with ``probability``, drawn from ``seed``; ``counts`` says where."""

    def __init__(self, seed: int, probability: float) -> None:
        self.chance = random.Random(seed)
        self.probability = probability
        self.counts = dict.fromkeys(BOUNDARIES, 0)
        self.spied_send: Callable[[EnvelopeSender, Any], None] = EnvelopeSender.send

    def maybe(self, boundary: str) -> None:
        if self.chance.random() < self.probability:
            self.counts[boundary] += 1
            raise Crash(boundary)

    def install(self, monkeypatch: pytest.MonkeyPatch) -> None:
        """The push function's POST and every SQS send crash at random (from now on: install the
        send spy first, and publish before, as publishing itself does not crash)."""
        service = importlib.import_module("push_worker.dependencies").push_delivery()
        real_post = service.post

        def crashing_post(*args: Any, **kwargs: Any) -> Any:
            self.maybe("before the POST")
            result = real_post(*args, **kwargs)
            self.maybe("after the POST")
            return result

        service.post = crashing_post
        self.spied_send = EnvelopeSender.send

        def crashing_send(sender: EnvelopeSender, outgoing: Any) -> None:
            self.spied_send(sender, outgoing)
            self.maybe("after the re-send")

        monkeypatch.setattr(EnvelopeSender, "send", crashing_send)

    def before_acknowledging(self) -> None:
        self.maybe("before the acknowledgement")
