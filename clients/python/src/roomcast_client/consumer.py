"""A PULL consumer loop: long-poll, hand each message to a handler, ack when it returns, nack when
it raises, and keep extending the ack wait of what it holds so slow work is not delivered twice."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from roomcast_client.client import Client
from roomcast_client.errors import RoomcastError
from roomcast_client.models import PulledMessage

logger = logging.getLogger("roomcast_client.consumer")

DEFAULT_ACK_WAIT_MS = 30_000  # the API's default ackWaitMs
MAX_WAIT_SECONDS = 20  # the API's longest long poll

Handler = Callable[[PulledMessage], object]


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


class _Held:
    """The receipts pulled and not yet acked or nacked, extended on a background thread."""

    def __init__(self, client: Client, room_id: str, subscription_id: str, ack_wait_ms: int) -> None:
        self._client, self._room_id, self._subscription_id = client, room_id, subscription_id
        self._ack_wait_ms = ack_wait_ms
        self._receipts: set[str] = set()
        self._lock = threading.Lock()
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._extend_forever, name="roomcast-extend", daemon=True)
        self.extensions = 0

    def __enter__(self) -> _Held:
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._stopped.set()
        self._thread.join()

    def add(self, receipts: list[str]) -> None:
        with self._lock:
            self._receipts.update(receipts)

    def release(self, receipt: str) -> None:
        with self._lock:
            self._receipts.discard(receipt)

    def _extend_forever(self) -> None:
        while not self._stopped.wait(extension_interval_s(self._ack_wait_ms)):
            with self._lock:
                receipts = sorted(self._receipts)
            if not receipts:
                continue
            try:
                result = self._client.extend(
                    self._room_id, self._subscription_id, receipts, ack_wait_ms=self._ack_wait_ms
                )
            except RoomcastError as error:  # the next tick tries again
                logger.warning("extending %d messages failed: %s", len(receipts), error)
                continue
            self.extensions += len(result.extended)
            for failure in result.failed:
                logger.warning("message %s could not be extended: %s", failure.message_id, failure.error)


class PullConsumer:
    """Consume a PULL subscription: ``PullConsumer(client, room_id, subscription_id, handler).run()``.

    Messages are handled one at a time, in the order pulled. ``handler(message)`` returning means
    done (ack); raising means failed (nack: the message comes back after the subscription's
    backoff, or ends dead after its last attempt). While messages are held, their ack wait is
    extended every third of it (``ack_wait_ms``: the subscription's, read at start unless given),
    so a handler may take longer than the ack wait. Delivery is at least once: make the handler
    idempotent (``message.message_id`` is stable across redeliveries).
    """

    def __init__(
        self,
        client: Client,
        room_id: str,
        subscription_id: str,
        handler: Handler,
        *,
        max_messages: int = 10,
        wait_seconds: int = MAX_WAIT_SECONDS,
        ack_wait_ms: int | None = None,
    ) -> None:
        self.client = client
        self.room_id = room_id
        self.subscription_id = subscription_id
        self.handler = handler
        self.max_messages = max_messages
        self.wait_seconds = wait_seconds
        self.ack_wait_ms = ack_wait_ms
        self.stats = ConsumerStats()
        self._stop = threading.Event()

    def stop(self) -> None:
        """Finish the message in hand, nack what is left of its batch, and return from ``run``
        (after the pull in progress, at most ``wait_seconds``)."""
        self._stop.set()

    def run(self, *, limit: int | None = None, until_idle: bool = False) -> ConsumerStats:
        """Consume until ``stop()``; or until ``limit`` messages were handled; or, with
        ``until_idle``, until a pull finds nothing."""
        ack_wait_ms = self.ack_wait_ms or self._subscription_ack_wait_ms()
        handled = 0
        with _Held(self.client, self.room_id, self.subscription_id, ack_wait_ms) as held:
            while not self._stop.is_set() and (limit is None or handled < limit):
                want = self.max_messages if limit is None else min(self.max_messages, limit - handled)
                messages = self.client.pull(
                    self.room_id, self.subscription_id, max_messages=want, wait_seconds=self.wait_seconds
                )
                self.stats.pulls += 1
                if not messages and until_idle:
                    break
                held.add([message.receipt for message in messages])
                for index, message in enumerate(messages):
                    if self._stop.is_set():  # give back the rest at once rather than at expiry
                        self._give_back(held, messages[index:])
                        break
                    self._handle(held, message)
                    handled += 1
            self.stats.extensions = held.extensions
        return self.stats

    def _subscription_ack_wait_ms(self) -> int:
        subscription = self.client.subscriptions.get(self.room_id, self.subscription_id)
        return subscription.ack_wait_ms or DEFAULT_ACK_WAIT_MS

    def _handle(self, held: _Held, message: PulledMessage) -> None:
        started = time.monotonic()
        try:
            self.handler(message)
        except Exception as error:
            logger.warning("handler failed on %s: %r (nacked)", message.message_id, error)
            self.stats.errors.append(f"{message.message_id}: {error!r}")
            self._give_back(held, [message])
            return
        held.release(message.receipt)
        result = self.client.ack(self.room_id, self.subscription_id, [message.receipt])
        self.stats.acked += len(result.acked)
        for failure in result.failed:  # e.g. handed out again after an extension failed
            logger.warning(
                "ack of %s failed after %.1f s: %s",
                failure.message_id,
                time.monotonic() - started,
                failure.error,
            )

    def _give_back(self, held: _Held, messages: list[PulledMessage]) -> None:
        receipts = [message.receipt for message in messages]
        for receipt in receipts:
            held.release(receipt)
        result = self.client.nack(self.room_id, self.subscription_id, receipts)
        self.stats.nacked += len(result.nacked)
