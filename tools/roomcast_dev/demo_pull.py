"""``make demo``'s PULL consumer: pull → nack → pull (the message comes back after the backoff) →
ack, in a thread of its own, with the SDK's ``pull``, ``nack`` and ``ack``.

Not the SDK's ``PullConsumer`` loop: the demo shows what the nack answered (when the message
comes back) and when each step happened, which that loop keeps to itself."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field

from roomcast_client import Client, PulledMessage
from roomcast_dev.demo_client import DemoError, calling
from roomcast_dev.demo_timeline import Timeline, epoch_of, seconds, short

PULL_WAIT_SECONDS = 5


@dataclass
class NackThenAck:
    """Nacks the message once, then acks it when it comes back; ``done`` or ``error`` says how
    it went, ``step`` what it is doing now."""

    client: Client  # its own: its long polls need a longer timeout; closed when the thread ends
    timeline: Timeline
    room_id: str
    subscription_id: str
    message_id: str
    deadline: float
    step: str = "not started"
    attempts_seen: list[int] = field(default_factory=list)
    nacked_at: float | None = None
    promised_at: float | None = None  # nextAttemptAt of the nack
    returned_at: float | None = None
    done: bool = False
    error: str | None = None
    _stop: threading.Event = field(default_factory=threading.Event)

    def start(self) -> threading.Thread:
        thread = threading.Thread(target=self._run, name="demo-pull", daemon=True)
        thread.start()
        return thread

    def stop(self) -> None:
        self._stop.set()

    @property
    def _path(self) -> str:
        return f"/rooms/{self.room_id}/subscriptions/{self.subscription_id}"

    def _run(self) -> None:
        try:
            self.step = "pulling the message (attempt 0)"
            first = self._pull_one()
            if first is None:
                return
            self.step = "nacking attempt 0"
            with calling(self.client, "POST", f"{self._path}/nack"):
                nack = self.client.nack(self.room_id, self.subscription_id, [first.receipt])
            self.nacked_at = time.time()
            nacked = nack.nacked[0] if nack.nacked else None
            if nacked is None or nacked.outcome != "retry" or nacked.next_attempt_at is None:
                self.error = f"nack answered {nack.model_dump(mode='json', by_alias=True)}"
                return
            self.promised_at = epoch_of(nacked.next_attempt_at)
            self.timeline.emit(
                "PULL",
                f"nack → outcome {nacked.outcome}: the message is hidden for the backoff and comes "
                f"back at {self.timeline.stamp(self.promised_at).strip()}",
                at=self.nacked_at,
            )
            self.step = "waiting for the nacked message to come back (attempt 1)"
            second = self._pull_one()
            if second is None:
                return
            self.returned_at = time.time()
            self.step = "acking attempt 1"
            with calling(self.client, "POST", f"{self._path}/ack"):
                ack = self.client.ack(self.room_id, self.subscription_id, [second.receipt])
            if self.message_id not in ack.acked:
                self.error = f"ack answered {ack.model_dump(mode='json', by_alias=True)}"
                return
            self.timeline.emit("PULL", f"ack → acked {short(self.message_id, 16)}: this delivery is done")
            self.step = "done"
            self.done = True
        except DemoError as error:
            self.error = str(error)
        except Exception as error:  # keep the thread's failure visible to the main loop
            self.error = f"{type(error).__name__}: {error}"
        finally:
            self.client.close()

    def _pull_one(self) -> PulledMessage | None:
        while not self._stop.is_set():
            remaining = self.deadline - time.time()
            if remaining <= 0:
                return None
            wait_seconds = max(0, min(PULL_WAIT_SECONDS, int(remaining)))
            with calling(self.client, "POST", f"{self._path}/pull"):
                messages = self.client.pull(
                    self.room_id, self.subscription_id, max_messages=1, wait_seconds=wait_seconds
                )
            for message in messages:
                if message.message_id != self.message_id:
                    continue
                self.attempts_seen.append(message.attempt)
                text = f"pull → {short(message.message_id, 16)} attempt {message.attempt}"
                if self.nacked_at is not None:
                    text += f", back {seconds(time.time() - self.nacked_at)} after the nack"
                self.timeline.emit("PULL", text)
                return message
        return None
