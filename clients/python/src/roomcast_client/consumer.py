"""PULL consumer loops: long-poll, hand each message to a handler, ack (with the next pull) when it
returns, nack when it raises, and keep extending the ack wait of what is held so slow work is not
delivered twice.

The loop and the extender are written once, as generators of steps (``_consumer_steps``);
``PullConsumer`` carries them out with a thread, ``AsyncPullConsumer`` with a task, as the
clients' executors do for a request.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Awaitable, Callable, Generator
from typing import Any, Generic, Protocol, TypeVar

from roomcast_client._consumer_steps import (
    ConsumerStats,
    ConsumerStep,
    Stopping,
    Subscription,
    Wait,
    consume,
    extend_held,
)
from roomcast_client._executors import Done, advance, raise_in
from roomcast_client.client import AsyncClient, Client
from roomcast_client.models import PulledMessage

__all__ = ["AsyncPullConsumer", "ConsumerStats", "PullConsumer"]

DEFAULT_ACK_WAIT_MS = 30_000  # the API's default ackWaitMs
MAX_WAIT_SECONDS = 20  # the API's longest long poll

Handler = Callable[[PulledMessage], object]
AsyncHandler = Callable[[PulledMessage], Awaitable[object]]


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
    done (acked with the next pull, or alone when the loop ends); raising means failed (nack: the
    message comes back after the subscription's backoff, or ends dead after its last attempt). While
    messages are held, a background thread extends their ack wait every third of it
    (``ack_wait_ms``: the subscription's, read at start, unless given), so a handler may take longer
    than the ack wait. Delivery is at least once: make the handler idempotent
    (``message.message_id`` is stable across redeliveries).
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
            try:
                outcome = self._carry_out(step, finished)
            except Exception as error:
                step = raise_in(steps, error)
            else:
                step = advance(steps, outcome)

    def _carry_out(self, step: ConsumerStep, finished: threading.Event) -> Any:
        if isinstance(step, Wait):
            return finished.wait(step.seconds)
        if isinstance(step, PulledMessage):
            return self.handler(step)
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
            try:
                outcome = await self._carry_out(step, finished)
            except Exception as error:
                step = raise_in(steps, error)
            else:
                step = advance(steps, outcome)

    async def _carry_out(self, step: ConsumerStep, finished: asyncio.Event) -> Any:
        if isinstance(step, Wait):
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(finished.wait(), step.seconds)
            return finished.is_set()
        if isinstance(step, PulledMessage):
            return await self.handler(step)
        return await self.client._executor.run(step)
