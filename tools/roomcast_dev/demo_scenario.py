"""``make demo``'s scenario: a room with a PUSH and a PULL subscription, one message published to
it, each delivery's status watched until both end, and the room deleted afterwards."""

from __future__ import annotations

import time
from contextlib import suppress
from dataclasses import dataclass, field

from roomcast_client import Client, Delivery, NotFound, SchedulePreview
from roomcast_dev.demo_client import REQUEST_TIMEOUT_S, DemoError, calling, demo_client
from roomcast_dev.demo_pull import PULL_WAIT_SECONDS, NackThenAck
from roomcast_dev.demo_timeline import Timeline, epoch_of, seconds
from roomcast_dev.demo_webhook import DemoWebhook

DEMO_TIMEOUT_S = 90.0
POLL_INTERVAL_S = 0.25
CORRELATION_ID = "order-1001"
ROOM_POLICY = {
    "message_expiration_ms": 60_000,
    "delivery_delay_ms": 1_000,
    "delivery_delay_multiplier": 2,
    "delivery_attempts": 5,
}


@dataclass
class Scenario:
    client: Client
    timeline: Timeline
    receiver: DemoWebhook
    deadline: float
    timeout_s: float = DEMO_TIMEOUT_S
    room_id: str = ""
    push_id: str = ""
    pull_id: str = ""
    message_id: str = ""
    schedule: SchedulePreview | None = None
    deliveries: dict[str, Delivery] = field(default_factory=dict)  # by subscription type
    consumer: NackThenAck | None = None
    throttled_room_id: str = ""

    def setup(self) -> None:
        say = self.timeline.say
        say("Setting up")
        with calling(self.client, "POST", "/rooms"):
            room = self.client.rooms.create(name="demo-orders", **ROOM_POLICY)
        self.room_id = room.id
        say(f"  room   {self.room_id}   (POST /rooms)")
        subscriptions = f"/rooms/{self.room_id}/subscriptions"
        with calling(self.client, "POST", subscriptions):
            push = self.client.subscriptions.create(
                self.room_id, type="PUSH", push_url=self.receiver.url, timeout_ms=5_000
            )
        if push.signing_secret is None:
            raise DemoError(f"POST {subscriptions} answered a PUSH subscription without its signing secret")
        self.push_id = push.id
        self.receiver.secret = push.signing_secret
        say(f"  PUSH   {self.push_id}    → {self.receiver.url}")
        say(f"         signing secret {self.receiver.secret[:12]}… (shown only in the create response)")
        with calling(self.client, "POST", subscriptions):
            pull = self.client.subscriptions.create(self.room_id, type="PULL")
        self.pull_id = pull.id
        say(f"  PULL   {self.pull_id}    (its own SQS queue)")
        say()
        with calling(self.client, "GET", f"{subscriptions}/{self.push_id}/schedule"):
            self.schedule = self.client.subscriptions.schedule(self.room_id, self.push_id)

    def publish(self) -> None:
        self.timeline.say(
            "Timeline, in seconds since publish. PUSH and PULL deliveries run side by side:\n"
            "  webhook = what the webhook server received and answered; PULL = this script's consumer;\n"
            "  status  = a change in GET /rooms/{roomId}/messages/{messageId} (polled 4 times a second)"
        )
        with calling(self.client, "POST", f"/rooms/{self.room_id}/messages"):
            published = self.client.messages.publish(
                self.room_id,
                {"orderId": 1001, "total": "59.90", "currency": "EUR"},
                event_type="order.created",
                event_version="1",
                correlation_id=CORRELATION_ID,
            )
        self.message_id = published.message_id
        self.timeline.t0 = epoch_of(published.published_at)
        self.timeline.emit(
            "publish",
            f"{self.message_id} to {len(published.destinations)} destinations "
            f"(correlation {published.correlation_id})",
            at=self.timeline.t0,
        )
        api_url, api_key = self.client.config.base_url, self.client.config.api_key
        self.consumer = NackThenAck(
            demo_client(api_url, api_key, timeout_s=PULL_WAIT_SECONDS + REQUEST_TIMEOUT_S),
            self.timeline,
            self.room_id,
            self.pull_id,
            self.message_id,
            self.deadline,
        )
        self.consumer.start()

    def watch(self) -> None:
        """Poll the message status until both deliveries end, printing each change."""
        assert self.consumer is not None
        seen: dict[str, tuple[str, int, str | None]] = {}
        while True:
            with calling(self.client, "GET", f"/rooms/{self.room_id}/messages/{self.message_id}"):
                status = self.client.messages.get(self.room_id, self.message_id)
            for delivery in status.deliveries:
                kind = delivery.subscription_type
                self.deliveries[kind] = delivery
                key = (delivery.status, delivery.attempts, delivery.next_attempt_at)
                if seen.get(kind) != key:
                    seen[kind] = key
                    self.timeline.emit("status", self._describe(delivery))
            push = self.deliveries.get("PUSH")
            pull = self.deliveries.get("PULL")
            if push is not None and push.status in ("dead", "expired"):
                raise DemoError(f"the PUSH delivery ended {push.status} ({push.last_error}), not delivered")
            if self.consumer.error is not None:
                raise DemoError(f"the PULL consumer failed: {self.consumer.error}")
            push_done = status_of(push) == "delivered" and any(
                c.status == 200 for c in self.receiver.snapshot()
            )
            if push_done and self.consumer.done and status_of(pull) == "delivered":
                return
            if time.time() >= self.deadline:
                raise DemoError(self._timeout_message(push, pull))
            time.sleep(POLL_INTERVAL_S)

    def _describe(self, delivery: Delivery) -> str:
        text = f"{delivery.subscription_type} {delivery.status}, attempts {delivery.attempts}"
        if delivery.status == "retrying" and delivery.next_attempt_at:
            due = epoch_of(delivery.next_attempt_at)
            wait = due - self._failed_at(delivery)
            text += f", next attempt at {self.timeline.stamp(due).strip()} (retry in {seconds(wait)})"
        if delivery.last_error and delivery.status != "delivered":
            text += f"  [{delivery.last_error}]"
        return text

    def _failed_at(self, delivery: Delivery) -> float:
        """When the attempt that failed last ended: the backoff runs from there."""
        if delivery.subscription_type == "PUSH":
            failed_attempt = delivery.attempts - 1
            for call in reversed(self.receiver.snapshot()):
                if call.attempt == failed_attempt:
                    return call.answered_at or call.arrived_at
        return epoch_of(delivery.updated_at)  # a nack: recorded just after it was handled

    def _timeout_message(self, push: Delivery | None, pull: Delivery | None) -> str:
        assert self.consumer is not None
        waiting = []
        calls = self.receiver.snapshot()
        if not any(c.status == 200 for c in calls):
            waiting.append(
                f"webhook attempt {len(calls)} (the server has had {len(calls)} of the 4 calls it expects)"
            )
        if status_of(push) != "delivered":
            attempts = None if push is None else push.attempts
            waiting.append(f"the PUSH delivery (now {status_of(push)}, attempts {attempts})")
        if not self.consumer.done:
            waiting.append(f"the PULL consumer ({self.consumer.step})")
        elif status_of(pull) != "delivered":
            waiting.append(f"the PULL delivery (now {status_of(pull)})")
        return (
            f"gave up after {self.timeout_s:.0f} s, still waiting for: "
            + "; ".join(waiting)
            + ".\n  The terminal of the local stack (make run) shows what went wrong, if anything did."
        )

    def cleanup(self) -> None:
        if self.throttled_room_id:
            delete_room(self.client, self.throttled_room_id)
        if not self.room_id:
            return
        try:
            delete_room(self.client, self.room_id)
            with calling(self.client, "GET", f"/rooms/{self.room_id}"):
                try:
                    self.client.rooms.get(self.room_id)
                except NotFound:
                    pass
                else:
                    raise DemoError(f"GET /rooms/{self.room_id} answered 200 after the room was deleted")
        except DemoError as error:
            self.timeline.say(f"cleanup: could not delete room {self.room_id}: {error}")
            return
        self.timeline.say(
            f"\nCleaned up: deleted room {self.room_id} with its 2 subscriptions and the PULL queue "
            "(GET /rooms/… now answers 404)."
        )


def status_of(delivery: Delivery | None) -> str | None:
    return None if delivery is None else delivery.status


def delete_room(client: Client, room_id: str) -> None:
    """Delete a room (with its subscriptions and queues) and wait for its job; one already gone is
    fine."""
    with calling(client, "DELETE", f"/rooms/{room_id}"), suppress(NotFound):
        client.jobs.wait(client.rooms.delete(room_id).id, timeout_s=60, poll_interval_s=0.3)
