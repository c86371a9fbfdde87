"""PULL consumer loops: long-poll, hand each message to a handler, ack when it returns, nack when
it raises, and keep extending the ack wait of what is held so slow work is not delivered twice.

The loop and the extender are written once, as generators of steps (a ``Call`` to run, a message
to ``Handle``, a ``Wait``); ``PullConsumer`` carries them out with a thread, ``AsyncPullConsumer``
with a task, as the clients' executors do for a request.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from collections.abc import Awaitable, Callable, Generator
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar

from roomcast_client._core import Call
from roomcast_client._executors import Done, advance
from roomcast_client.client import AsyncClient, Client
from roomcast_client.errors import RoomcastError
from roomcast_client.models import AckResult, ExtendResult, NackResult, PulledMessage
from roomcast_client.resources import pull_call, receipts_call

logger = logging.getLogger("roomcast_client.consumer")

DEFAULT_ACK_WAIT_MS = 30_000  # the API's default ackWaitMs
MAX_WAIT_SECONDS = 20  # the API's longest long poll

Handler = Callable[[PulledMessage], object]
AsyncHandler = Callable[[PulledMessage], Awaitable[object]]


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
class Handle:
    message: PulledMessage


@dataclass(frozen=True)
class Wait:
    seconds: float


@dataclass(frozen=True)
class Try:
    """A call whose failure is answered (as the ``RoomcastError``) rather than raised."""

    call: Call[Any]


ConsumerStep = Call[Any] | Handle | Wait | Try


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
    """The consumer's loop: pull, handle each message in order, ack or nack it."""
    handled = 0
    while not stop.is_set() and (limit is None or handled < limit):
        count = where.max_messages if limit is None else min(where.max_messages, limit - handled)
        messages: list[PulledMessage] = yield where.pull(count)
        stats.pulls += 1
        if not messages and until_idle:
            return
        where.hold([message.receipt for message in messages])
        for index, message in enumerate(messages):
            if stop.is_set():  # give back the rest at once rather than at their ack wait's end
                nacked: NackResult = yield where.nack([m.receipt for m in messages[index:]])
                stats.nacked += len(nacked.nacked)
                return
            error: Exception | None = yield Handle(message)
            handled += 1
            if error is None:
                acked: AckResult = yield where.ack([message.receipt])
                stats.acked += len(acked.acked)
                _log_failures("ack", acked.failed)
            else:
                logger.warning("handler failed on %s: %r (nacked)", message.message_id, error)
                stats.errors.append(f"{message.message_id}: {error!r}")
                nacked = yield where.nack([message.receipt])
                stats.nacked += len(nacked.nacked)


def extend_held(where: Subscription, stats: ConsumerStats) -> Generator[ConsumerStep, Any]:
    """The extender: every third of the ack wait, extend what is held. A ``Wait`` is answered
    True once the consumer has stopped; a failed call is answered with its error."""
    while not (yield Wait(extension_interval_s(where.ack_wait_ms))):
        receipts = where.holding()
        if not receipts:
            continue
        result: ExtendResult | RoomcastError = yield Try(where.extend(receipts))
        if isinstance(result, RoomcastError):  # the next tick tries again
            logger.warning("extending %d messages failed: %s", len(receipts), result)
            continue
        stats.extensions += len(result.extended)
        _log_failures("extend", result.failed)


def _log_failures(action: str, failures: list[Any]) -> None:
    for failure in failures:  # e.g. handed out again after extensions failed
        logger.warning("%s of %s failed: %s", action, failure.message_id, failure.error)


ClientT = TypeVar("ClientT", Client, AsyncClient)
HandlerT = TypeVar("HandlerT", Handler, AsyncHandler)


class Flag(Stopping, Protocol):
    def set(self) -> None: ...


class _ConsumerBase(Generic[ClientT, HandlerT]):
    def __init__(
        self,
        client: ClientT,
        room_id: str,
        subscription_id: str,
        handler: HandlerT,
        *,
        max_messages: int = 10,
        wait_seconds: int = MAX_WAIT_SECONDS,
        ack_wait_ms: int | None = None,
    ) -> None:
        self.client: ClientT = client
        self.room_id = room_id
        self.subscription_id = subscription_id
        self.handler: HandlerT = handler
        self.max_messages = max_messages
        self.wait_seconds = wait_seconds
        self.ack_wait_ms = ack_wait_ms
        self.stats = ConsumerStats()
        self._stop: Flag = self._new_flag()

    def _new_flag(self) -> Flag:
        raise NotImplementedError

    def stop(self) -> None:
        """Finish the message in hand, nack what is left of its batch, and return from ``run``
        (after the pull in progress: at most ``wait_seconds``)."""
        self._stop.set()

    def _where(self, subscription_ack_wait_ms: int | None) -> Subscription:
        ack_wait_ms = self.ack_wait_ms or subscription_ack_wait_ms or DEFAULT_ACK_WAIT_MS
        return Subscription(
            self.room_id, self.subscription_id, ack_wait_ms, self.max_messages, self.wait_seconds
        )


class PullConsumer(_ConsumerBase[Client, Handler]):
    """Consume a PULL subscription: ``PullConsumer(client, room_id, subscription_id, handler).run()``.

    Messages are handled one at a time, in the order pulled. ``handler(message)`` returning means
    done (ack); raising means failed (nack: the message comes back after the subscription's
    backoff, or ends dead after its last attempt). While messages are held, a background thread
    extends their ack wait every third of it (``ack_wait_ms``: the subscription's, read at start,
    unless given), so a handler may take longer than the ack wait. Delivery is at least once:
    make the handler idempotent (``message.message_id`` is stable across redeliveries).
    """

    def _new_flag(self) -> Flag:
        return threading.Event()

    def run(self, *, limit: int | None = None, until_idle: bool = False) -> ConsumerStats:
        """Consume until ``stop()``; or until ``limit`` messages were handled; or, with
        ``until_idle``, until a pull finds nothing. The stats (also ``self.stats``)."""
        subscription = (
            None if self.ack_wait_ms else self.client.subscriptions.get(self.room_id, self.subscription_id)
        )
        where = self._where(subscription.ack_wait_ms if subscription else None)
        finished = threading.Event()
        extender = threading.Thread(
            target=self._drive,
            args=(extend_held(where, self.stats), finished),
            name="roomcast-extend",
            daemon=True,
        )
        extender.start()
        try:
            self._drive(consume(where, self._stop, self.stats, limit, until_idle), finished)
        finally:
            finished.set()
            extender.join()
        return self.stats

    def _drive(self, steps: Generator[ConsumerStep, Any], finished: threading.Event) -> None:
        step = advance(steps, None)
        while not isinstance(step, Done):
            step = advance(steps, self._carry_out(step, finished))

    def _carry_out(self, step: ConsumerStep, finished: threading.Event) -> Any:
        if isinstance(step, Wait):
            return finished.wait(step.seconds)
        if isinstance(step, Handle):
            try:
                self.handler(step.message)
            except Exception as error:
                return error
            return None
        if isinstance(step, Try):
            try:
                return self.client._executor.run(step.call)
            except RoomcastError as error:
                return error
        return self.client._executor.run(step)


class AsyncPullConsumer(_ConsumerBase[AsyncClient, AsyncHandler]):
    """``PullConsumer`` for ``AsyncClient``: an async handler, an extender task; ``await run()``."""

    def _new_flag(self) -> Flag:
        return asyncio.Event()

    async def run(self, *, limit: int | None = None, until_idle: bool = False) -> ConsumerStats:
        """As ``PullConsumer.run``."""
        subscription = None
        if not self.ack_wait_ms:
            subscription = await self.client.subscriptions.get(self.room_id, self.subscription_id)
        where = self._where(subscription.ack_wait_ms if subscription else None)
        finished = asyncio.Event()
        extender = asyncio.create_task(self._drive(extend_held(where, self.stats), finished))
        try:
            await self._drive(consume(where, self._stop, self.stats, limit, until_idle), finished)
        finally:
            finished.set()
            await extender
        return self.stats

    async def _drive(self, steps: Generator[ConsumerStep, Any], finished: asyncio.Event) -> None:
        step = advance(steps, None)
        while not isinstance(step, Done):
            step = advance(steps, await self._carry_out(step, finished))

    async def _carry_out(self, step: ConsumerStep, finished: asyncio.Event) -> Any:
        if isinstance(step, Wait):
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(finished.wait(), step.seconds)
            return finished.is_set()
        if isinstance(step, Handle):
            try:
                await self.handler(step.message)
            except Exception as error:
                return error
            return None
        if isinstance(step, Try):
            try:
                return await self.client._executor.run(step.call)
            except RoomcastError as error:
                return error
        return await self.client._executor.run(step)
