"""What a PULL consumer does, written once as generators of steps: ``consume`` (long-poll, hand each
message to the handler, ack it with the next pull when the handler returns, nack it when it raises)
and ``extend_held`` (keep extending the ack wait of what is held, so slow work is not delivered
twice). A step is a ``Call`` to run, a ``PulledMessage`` to hand to the handler, or a ``Wait``;
``consumer.py``'s sync and async consumers carry them out, as the clients' executors do for a
request. A step is answered with what it returned; what it raised is raised in the generator, at the
``yield`` of that step, which catches what it answers (a failed handler, a failed extension) and
lets the rest end the loop.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Generator
from dataclasses import dataclass, field
from typing import Any, Protocol

from roomcast_client._core import Call
from roomcast_client.errors import RoomcastError
from roomcast_client.models import AckResult, ExtendResult, NackResult, PullAndAckResult, PulledMessage
from roomcast_client.resources import pull_and_ack_call, pull_call, receipts_call

# The consumer's logger, by the public module's name: what users configure.
logger = logging.getLogger("roomcast_client.consumer")


@dataclass
class ConsumerStats:
    """What a consumer did so far."""

    pulls: int = 0
    acked: int = 0
    nacked: int = 0
    extensions: int = 0
    errors: list[str] = field(default_factory=list)  # the handler's exceptions, newest last


def extension_interval_s(ack_wait_ms: int) -> float:
    """How often held messages are extended: three times per ack wait, so that one failed
    extension still leaves time for the next before the message is handed out again."""
    return max(ack_wait_ms / 3000, 0.2)


@dataclass(frozen=True)
class Wait:
    """Pause ``seconds`` (less if the consumer stops); answered whether it has stopped."""

    seconds: float


ConsumerStep = Call[Any] | PulledMessage | Wait


class Stopping(Protocol):
    def is_set(self) -> bool: ...


@dataclass
class Subscription:
    """Where the consumer works and how: builds the calls it makes."""

    room_id: str
    subscription_id: str
    ack_wait_ms: int
    max_messages: int
    wait_seconds: int
    held: set[str] = field(default_factory=set)  # receipts pulled, not yet acked or nacked
    lock: threading.Lock = field(default_factory=threading.Lock)

    def pull(self, count: int) -> Call[list[PulledMessage]]:
        return pull_call(
            self.room_id, self.subscription_id, max_messages=count, wait_seconds=self.wait_seconds
        )

    def pull_and_ack(self, count: int, receipts: list[str]) -> Call[PullAndAckResult]:
        self.release(receipts)
        return pull_and_ack_call(
            self.room_id, self.subscription_id, receipts, max_messages=count, wait_seconds=self.wait_seconds
        )

    def ack(self, receipts: list[str]) -> Call[AckResult]:
        self.release(receipts)
        return receipts_call("ack", self.room_id, self.subscription_id, receipts, AckResult)

    def nack(self, receipts: list[str]) -> Call[NackResult]:
        self.release(receipts)
        return receipts_call("nack", self.room_id, self.subscription_id, receipts, NackResult)

    def extend(self, receipts: list[str]) -> Call[ExtendResult]:
        return receipts_call(
            "extend", self.room_id, self.subscription_id, receipts, ExtendResult, ackWaitMs=self.ack_wait_ms
        )

    def hold(self, receipts: list[str]) -> None:
        with self.lock:
            self.held.update(receipts)

    def release(self, receipts: list[str]) -> None:
        with self.lock:
            self.held.difference_update(receipts)

    def holding(self) -> list[str]:
        with self.lock:
            return sorted(self.held)


def consume(
    where: Subscription, stop: Stopping, stats: ConsumerStats, limit: int | None, until_idle: bool
) -> Generator[ConsumerStep, Any]:
    """The consumer's loop: pull, handle each message in order, nack it at once when the handler
    raises; what the handler returned on is acked with the next pull (one request for both; it
    stays held, its ack wait extended, until then), or on its own when the loop ends."""
    handled = 0
    done: list[str] = []  # receipts of messages handled, to ack with the next pull
    while not stop.is_set() and (limit is None or handled < limit):
        count = where.max_messages if limit is None else min(where.max_messages, limit - handled)
        messages: list[PulledMessage]
        if done:
            pulled: PullAndAckResult = yield where.pull_and_ack(count, done)
            stats.acked += len(pulled.acked)
            _log_failures("ack", pulled.ack_failed)
            messages, done = pulled.messages, []
        else:
            messages = yield where.pull(count)
        stats.pulls += 1
        if not messages and until_idle:
            return
        where.hold([message.receipt for message in messages])
        for index, message in enumerate(messages):
            if stop.is_set():  # give back the rest at once rather than at their ack wait's end
                nacked: NackResult = yield where.nack([m.receipt for m in messages[index:]])
                stats.nacked += len(nacked.nacked)
                break
            handled += 1
            try:
                yield message  # the handler runs: what it raises is raised here
            except Exception as error:
                logger.warning("handler failed on %s: %r (nacked)", message.message_id, error)
                stats.errors.append(f"{message.message_id}: {error!r}")
                nacked = yield where.nack([message.receipt])
                stats.nacked += len(nacked.nacked)
                continue
            done.append(message.receipt)
    if done:
        acked: AckResult = yield where.ack(done)
        stats.acked += len(acked.acked)
        _log_failures("ack", acked.failed)


def extend_held(where: Subscription, stats: ConsumerStats) -> Generator[ConsumerStep, Any]:
    """The extender: every third of the ack wait until the consumer stops, extend what is held."""
    while not (yield Wait(extension_interval_s(where.ack_wait_ms))):
        receipts = where.holding()
        if not receipts:
            continue
        try:
            result: ExtendResult = yield where.extend(receipts)
        except RoomcastError as error:  # the next tick tries again
            logger.warning("extending %d messages failed: %s", len(receipts), error)
            continue
        stats.extensions += len(result.extended)
        _log_failures("extend", result.failed)


def _log_failures(action: str, failures: list[Any]) -> None:
    for failure in failures:  # e.g. handed out again after extensions failed
        logger.warning("%s of %s failed: %s", action, failure.message_id, failure.error)
