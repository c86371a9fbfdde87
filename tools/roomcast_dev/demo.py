"""``make demo``: one message, a PUSH and a PULL subscriber, and exponential backoff, live.

Runs against a local stack that is already running (``make run``), over plain HTTP:

- starts a small webhook server on 127.0.0.1 that verifies every request's Standard Webhooks
  signature and fails the first three deliveries (500, 503 with ``Retry-After: 2``, 500);
- creates a room (retry after 1 s, each wait twice the previous one, 5 redeliveries), a PUSH
  subscription to that server and a PULL subscription, and prints the PUSH retry schedule;
- publishes one message and prints a timeline as it happens: every webhook attempt, the PULL
  consumer's pull → nack → pull → ack, and each delivery's status as the API reports it;
- prints a summary, deletes the room (its subscriptions and queue go with it) and stops.

    PYTHONPATH=layers/shared:tools .venv/bin/python -m roomcast_dev.demo

``ROOMCAST_API_KEY`` picks the key; without it the demo creates one for the tenant ``demo``.
"""

from __future__ import annotations

import argparse
import base64
import binascii
import hmac
import itertools
import json
import os
import sys
import textwrap
import threading
import time
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any, TextIO

import requests

from roomcast_dev.webhook_receiver import RecordedRequest, Reply, WebhookReceiver

DEMO_TIMEOUT_S = 90.0
# How much earlier than its slot on the limit's schedule a request may arrive (network jitter).
SCHEDULE_TOLERANCE_SECONDS = 0.1
THROTTLED_MESSAGES = 3
POLL_INTERVAL_S = 0.25
PULL_WAIT_SECONDS = 5
REQUEST_TIMEOUT_S = 15.0
TENANT = "demo"
CORRELATION_ID = "order-1001"
ROOM_POLICY: dict[str, Any] = {
    "messageExpirationMs": 60_000,
    "deliveryDelayMs": 1_000,
    "deliveryDelayMultiplier": 2,
    "deliveryAttempts": 5,
}
# What the webhook server answers to attempts 0, 1 and 2; attempt 3 and later get 200. (Keyed by the
# attempt in the body, so a duplicate delivery -- at least once -- gets the answer its original got.)
WEBHOOK_SCRIPT: tuple[tuple[int, dict[str, str]], ...] = (
    (500, {}),
    (503, {"Retry-After": "2"}),
    (500, {}),
)
SIGNATURE_TOLERANCE_S = 5 * 60


class DemoError(Exception):
    """An expected failure: reported in one clear message, without a traceback."""


# -- output ----------------------------------------------------------------------------------------


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


# -- the API -----------------------------------------------------------------------------------


@dataclass
class Api:
    base_url: str
    api_key: str
    session: requests.Session = field(default_factory=requests.Session)

    def call(
        self,
        method: str,
        path: str,
        body: Any = None,
        expect: tuple[int, ...] = (200,),
        timeout: float = REQUEST_TIMEOUT_S,
    ) -> Any:
        try:
            response = self.session.request(
                method,
                f"{self.base_url}{path}",
                json=body,
                headers={"Authorization": f"Bearer {self.api_key}"},
                timeout=timeout,
            )
        except requests.RequestException as error:
            raise DemoError(
                f"{method} {path}: the API at {self.base_url} did not answer ({type(error).__name__}). "
                "Is the local stack still running? Start it with: make run"
            ) from error
        if response.status_code not in expect:
            hint = ""
            if response.status_code in (401, 403):
                hint = (
                    "\n  The API refused the key. If ROOMCAST_API_KEY is set, it must be a key of this"
                    "\n  stack (each `make run` starts empty): unset it and the demo creates its own key."
                )
            raise DemoError(f"{method} {path} answered {response.status_code}: {response.text[:500]}{hint}")
        try:
            return response.json() if response.content else None
        except ValueError as error:
            raise DemoError(
                f"{method} {path} answered something that is not JSON: {response.text[:200]}"
            ) from error


# -- the webhook server ----------------------------------------------------------------------------


def verify_signature(secret: str, headers: dict[str, str], body: bytes) -> str | None:
    """None when the Standard Webhooks signature is valid, else what is wrong with it."""
    try:
        from standardwebhooks.webhooks import Webhook, WebhookVerificationError
    except ImportError:  # not in this environment: recompute with roomcast's own signer
        return verify_with_roomcast(secret, headers, body)
    try:
        Webhook(secret).verify(body, headers, json_parse=False)
    except WebhookVerificationError as error:
        return str(error)
    except Exception as error:  # malformed headers or secret: a bad signature all the same
        return f"{type(error).__name__}: {error}"
    return None


def verify_with_roomcast(secret: str, headers: dict[str, str], body: bytes) -> str | None:
    from roomcast.webhooks.signing import sign

    lowered = {name.lower(): value for name, value in headers.items()}
    message_id = lowered.get("webhook-id", "")
    timestamp = lowered.get("webhook-timestamp", "")
    signatures = lowered.get("webhook-signature", "")
    if not (message_id and timestamp and signatures):
        return "missing webhook-id, webhook-timestamp or webhook-signature"
    try:
        timestamp_s = int(timestamp)
    except ValueError:
        return f"webhook-timestamp {timestamp!r} is not a number"
    if abs(time.time() - timestamp_s) > SIGNATURE_TOLERANCE_S:
        return "webhook-timestamp is more than 5 minutes off"
    expected = sign(secret, message_id, timestamp_s, body).partition(",")[2]
    try:
        expected_bytes = base64.b64decode(expected)
        for candidate in signatures.split(" "):
            version, _, value = candidate.partition(",")
            if version == "v1" and hmac.compare_digest(expected_bytes, base64.b64decode(value)):
                return None
    except (binascii.Error, ValueError):
        return "webhook-signature is not base64"
    return "no matching signature"


@dataclass
class WebhookCall:
    number: int  # 1 for the first request the server received
    arrived_at: float  # epoch seconds
    webhook_id: str
    attempt: int | None  # the envelope's attempt, from the body
    status: int
    retry_after: str | None
    signature_problem: str | None
    answered_at: float | None = None  # epoch seconds, once the answer is written


class DemoWebhook:
    """The demo's subscriber on 127.0.0.1: answers as WEBHOOK_SCRIPT says, verifies every
    signature and narrates each call on the timeline."""

    def __init__(self, timeline: Timeline) -> None:
        self.timeline = timeline
        self.secret = ""  # known once the PUSH subscription exists
        self._calls: list[WebhookCall] = []
        self._lock = threading.Lock()
        self._receiver = WebhookReceiver(self._answer, clock=time.time)

    @property
    def url(self) -> str:
        return self._receiver.url("/webhook")

    def start(self) -> None:
        self._receiver.start()

    def stop(self) -> None:
        self._receiver.stop()

    def snapshot(self) -> list[WebhookCall]:
        """The calls so far, each with the moment its answer was written (once it was)."""
        answered_at = {request.number: request.answered_at for request in self._receiver.requests}
        with self._lock:
            return [replace(call, answered_at=answered_at.get(call.number - 1)) for call in self._calls]

    def _answer(self, number: int, request: RecordedRequest) -> Reply:
        body = request.json
        attempt = body.get("attempt") if isinstance(body, dict) else None
        if not isinstance(attempt, int) or isinstance(attempt, bool):
            attempt = None
        index = number if attempt is None else attempt
        status, extra = WEBHOOK_SCRIPT[index] if 0 <= index < len(WEBHOOK_SCRIPT) else (200, {})
        call = WebhookCall(
            number=number + 1,
            arrived_at=request.arrived_at,
            webhook_id=request.headers.get("webhook-id", ""),
            attempt=attempt,
            status=status,
            retry_after=extra.get("Retry-After"),
            signature_problem=verify_signature(self.secret, dict(request.headers), request.body),
        )
        with self._lock:
            self._calls.append(call)
        self.timeline.emit("webhook", describe_call(call), at=request.arrived_at)
        reply = json.dumps({"ok": status == 200}).encode()
        return Reply(status, {**extra, "Content-Type": "application/json"}, reply)


def describe_call(call: WebhookCall) -> str:
    attempt = "?" if call.attempt is None else str(call.attempt)
    signature = (
        "signature ok" if call.signature_problem is None else f"SIGNATURE BAD: {call.signature_problem}"
    )
    answer = f"{call.status}"
    if call.retry_after is not None:
        answer += f" Retry-After {call.retry_after} s"
    if call.status == 200:
        answer += " delivered"
    return f"attempt {attempt} → {answer}  ({signature}, webhook-id {short(call.webhook_id, 16)})"


# -- the PULL consumer -------------------------------------------------------------------------------


@dataclass
class PullConsumer:
    """pull → nack → pull (the message comes back after the backoff) → ack, in its own thread."""

    api: Api
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
            answer = self.api.call("POST", f"{self._path}/nack", {"receipts": [first["receipt"]]})
            self.nacked_at = time.time()
            nacked = answer["nacked"][0] if answer["nacked"] else None
            if nacked is None or nacked["outcome"] != "retry":
                self.error = f"nack answered {answer}"
                return
            self.promised_at = epoch_of(nacked["nextAttemptAt"])
            self.timeline.emit(
                "PULL",
                f"nack → outcome {nacked['outcome']}: the message is hidden for the backoff and comes "
                f"back at {self.timeline.stamp(self.promised_at).strip()}",
                at=self.nacked_at,
            )
            self.step = "waiting for the nacked message to come back (attempt 1)"
            second = self._pull_one()
            if second is None:
                return
            self.returned_at = time.time()
            self.step = "acking attempt 1"
            answer = self.api.call("POST", f"{self._path}/ack", {"receipts": [second["receipt"]]})
            if self.message_id not in answer["acked"]:
                self.error = f"ack answered {answer}"
                return
            self.timeline.emit("PULL", f"ack → acked {short(self.message_id, 16)}: this delivery is done")
            self.step = "done"
            self.done = True
        except DemoError as error:
            self.error = str(error)
        except Exception as error:  # keep the thread's failure visible to the main loop
            self.error = f"{type(error).__name__}: {error}"
        finally:
            self.api.session.close()

    def _pull_one(self) -> dict[str, Any] | None:
        while not self._stop.is_set():
            remaining = self.deadline - time.time()
            if remaining <= 0:
                return None
            wait = max(0, min(PULL_WAIT_SECONDS, int(remaining)))
            answer = self.api.call(
                "POST",
                f"{self._path}/pull",
                {"maxMessages": 1, "waitSeconds": wait},
                timeout=wait + REQUEST_TIMEOUT_S,
            )
            for message in answer["messages"]:
                if message["messageId"] != self.message_id:
                    continue
                self.attempts_seen.append(message["attempt"])
                text = f"pull → {short(message['messageId'], 16)} attempt {message['attempt']}"
                if self.nacked_at is not None:
                    text += f", back {seconds(time.time() - self.nacked_at)} after the nack"
                self.timeline.emit("PULL", text)
                result: dict[str, Any] = message
                return result
        return None


# -- the scenario ----------------------------------------------------------------------------------


HEADER = """\
roomcast demo: one message, two subscribers, exponential backoff
================================================================
Local stack: {api_url}

This script plays every part itself:
  * a publisher: it creates a room and publishes one message to it;
  * a webhook receiver behind a PUSH subscription, a small HTTP server at
      {webhook_url}
    It checks each request's signature (Standard Webhooks) and answers 500, then
    503 with Retry-After: 2, then 500: only the 4th try gets 200. roomcast keeps
    retrying, waiting longer each time (exponential backoff);
  * a PULL consumer: it pulls the message, nacks it once ("can't handle it now"),
    pulls it again when it comes back after the backoff, and acks it.
Room policy: first retry after 1 s, each next wait 2x longer, at most 5 retries;
messages expire 60 s after publish.
"""


def print_schedule(timeline: Timeline, preview: dict[str, Any]) -> None:
    timeline.say(
        f"Retry schedule of the PUSH subscription (GET …/subscriptions/{preview['subscriptionId']}/schedule):"
    )
    timeline.say("    attempt   waits before   since publish")
    for row in preview["attempts"]:
        note = "  first delivery" if row["attempt"] == 0 else ""
        if row["cutByExpiry"]:
            note = "  never made: past the room's expiry (the message expires instead)"
        timeline.say(
            f"    {row['attempt']:>7}   {seconds(row['delayMs'] / 1000):>12}   "
            f"{seconds(row['sincePublishMs'] / 1000):>13}{note}"
        )
    timeline.say("    then dead (or handed to the failover subscription, if it had one).")
    timeline.say(textwrap.fill(preview["note"], width=92, initial_indent="    ", subsequent_indent="    "))
    timeline.say()


@dataclass
class Scenario:
    api: Api
    timeline: Timeline
    receiver: DemoWebhook
    deadline: float
    timeout_s: float = DEMO_TIMEOUT_S
    room_id: str = ""
    push_id: str = ""
    pull_id: str = ""
    message_id: str = ""
    schedule: list[dict[str, Any]] = field(default_factory=list)
    deliveries: dict[str, dict[str, Any]] = field(default_factory=dict)  # by subscription type
    consumer: PullConsumer | None = None
    throttled_room_id: str = ""

    def setup(self) -> None:
        say = self.timeline.say
        say("Setting up")
        room = self.api.call("POST", "/rooms", {"name": "demo-orders", **ROOM_POLICY}, expect=(201,))
        self.room_id = room["id"]
        say(f"  room   {self.room_id}   (POST /rooms)")
        push = self.api.call(
            "POST",
            f"/rooms/{self.room_id}/subscriptions",
            {"type": "PUSH", "pushUrl": self.receiver.url, "timeoutMs": 5_000},
            expect=(201,),
        )
        self.push_id = push["id"]
        self.receiver.secret = push["signingSecret"]
        say(f"  PUSH   {self.push_id}    → {self.receiver.url}")
        say(f"         signing secret {self.receiver.secret[:12]}… (shown only in the create response)")
        pull = self.api.call("POST", f"/rooms/{self.room_id}/subscriptions", {"type": "PULL"}, expect=(201,))
        self.pull_id = pull["id"]
        say(f"  PULL   {self.pull_id}    (its own SQS queue)")
        say()
        preview = self.api.call("GET", f"/rooms/{self.room_id}/subscriptions/{self.push_id}/schedule")
        self.schedule = preview["attempts"]
        print_schedule(self.timeline, preview)

    def publish(self) -> None:
        self.timeline.say(
            "Timeline, in seconds since publish. PUSH and PULL deliveries run side by side:\n"
            "  webhook = what the webhook server received and answered; PULL = this script's consumer;\n"
            "  status  = a change in GET /rooms/{roomId}/messages/{messageId} (polled 4 times a second)"
        )
        published = self.api.call(
            "POST",
            f"/rooms/{self.room_id}/messages",
            {
                "eventType": "order.created",
                "eventVersion": "1",
                "correlationId": CORRELATION_ID,
                "payload": {"orderId": 1001, "total": "59.90", "currency": "EUR"},
            },
            expect=(202,),
        )
        self.message_id = published["messageId"]
        self.timeline.t0 = epoch_of(published["publishedAt"])
        self.timeline.emit(
            "publish",
            f"{self.message_id} to {len(published['destinations'])} destinations "
            f"(correlation {published['correlationId']})",
            at=self.timeline.t0,
        )
        # Its own session: a requests.Session is not meant to be shared between threads.
        self.consumer = PullConsumer(
            Api(self.api.base_url, self.api.api_key),
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
        seen: dict[str, tuple[Any, ...]] = {}
        while True:
            status = self.api.call("GET", f"/rooms/{self.room_id}/messages/{self.message_id}")
            for delivery in status["deliveries"]:
                kind = delivery["subscriptionType"]
                self.deliveries[kind] = delivery
                key = (delivery["status"], delivery["attempts"], delivery["nextAttemptAt"])
                if seen.get(kind) != key:
                    seen[kind] = key
                    self.timeline.emit("status", self._describe(delivery))
            push = self.deliveries.get("PUSH", {})
            pull = self.deliveries.get("PULL", {})
            if push.get("status") in ("dead", "expired"):
                raise DemoError(
                    f"the PUSH delivery ended {push['status']} ({push.get('lastError')}), not delivered"
                )
            if self.consumer.error is not None:
                raise DemoError(f"the PULL consumer failed: {self.consumer.error}")
            push_done = push.get("status") == "delivered" and any(
                c.status == 200 for c in self.receiver.snapshot()
            )
            if push_done and self.consumer.done and pull.get("status") == "delivered":
                return
            if time.time() >= self.deadline:
                raise DemoError(self._timeout_message(push, pull))
            time.sleep(POLL_INTERVAL_S)

    def _describe(self, delivery: dict[str, Any]) -> str:
        text = f"{delivery['subscriptionType']} {delivery['status']}, attempts {delivery['attempts']}"
        if delivery["status"] == "retrying" and delivery["nextAttemptAt"]:
            due = epoch_of(delivery["nextAttemptAt"])
            wait = due - self._failed_at(delivery)
            text += f", next attempt at {self.timeline.stamp(due).strip()} (retry in {seconds(wait)})"
        if delivery["lastError"] and delivery["status"] != "delivered":
            text += f"  [{delivery['lastError']}]"
        return text

    def _failed_at(self, delivery: dict[str, Any]) -> float:
        """When the attempt that failed last ended: the backoff runs from there."""
        if delivery["subscriptionType"] == "PUSH":
            failed_attempt = delivery["attempts"] - 1
            for call in reversed(self.receiver.snapshot()):
                if call.attempt == failed_attempt:
                    return call.answered_at or call.arrived_at
        return epoch_of(delivery["updatedAt"])  # a nack: recorded just after it was handled

    def _timeout_message(self, push: dict[str, Any], pull: dict[str, Any]) -> str:
        assert self.consumer is not None
        waiting = []
        calls = self.receiver.snapshot()
        if not any(c.status == 200 for c in calls):
            waiting.append(
                f"webhook attempt {len(calls)} (the server has had {len(calls)} of the 4 calls it expects)"
            )
        if push.get("status") != "delivered":
            waiting.append(f"the PUSH delivery (now {push.get('status')}, attempts {push.get('attempts')})")
        if not self.consumer.done:
            waiting.append(f"the PULL consumer ({self.consumer.step})")
        elif pull.get("status") != "delivered":
            waiting.append(f"the PULL delivery (now {pull.get('status')})")
        return (
            f"gave up after {self.timeout_s:.0f} s, still waiting for: "
            + "; ".join(waiting)
            + ".\n  The terminal of the local stack (make run) shows what went wrong, if anything did."
        )

    def summary(self) -> int:
        assert self.consumer is not None
        say = self.timeline.say
        calls = self.receiver.snapshot()
        push = self.deliveries["PUSH"]
        pull = self.deliveries["PULL"]
        say()
        say("Summary")
        say(f"  PUSH {self.push_id}: {push['status']} after {push['attempts']} attempts")
        say("      attempt   answer                 waited   policy")
        previous: WebhookCall | None = None
        attempts_seen: set[int | None] = set()
        duplicates = 0
        for call in calls:
            answer = str(call.status) + (f" Retry-After {call.retry_after} s" if call.retry_after else "")
            if call.attempt is not None and call.attempt in attempts_seen:
                duplicates += 1
                answer += " (duplicate delivery)"
            attempts_seen.add(call.attempt)
            if previous is None:
                waited, policy = "-", "-"
            else:
                waited = seconds(call.arrived_at - previous.arrived_at)
                policy = self._policy_wait(call.attempt, previous)
            attempt = "?" if call.attempt is None else str(call.attempt)
            say(f"      {attempt:>7}   {answer:<20}   {waited:>6}   {policy}")
            previous = call
        bad = [c for c in calls if c.signature_problem is not None]
        ids = {c.webhook_id for c in calls}
        if bad:
            say(f"      {len(bad)} request(s) had a BAD signature: {bad[0].signature_problem}")
        else:
            say(f"      all {len(calls)} requests carried a valid signature")
        say(f"      and the same webhook-id ({', '.join(sorted(ids))}): receivers drop duplicates by it")
        if duplicates:
            say(
                f"      {duplicates} duplicate(s): delivery is at least once, so a receiver can see one twice"
            )
        came_back = (
            seconds(self.consumer.returned_at - self.consumer.nacked_at)
            if self.consumer.returned_at and self.consumer.nacked_at
            else "?"
        )
        say(
            f"  PULL {self.pull_id}: {pull['status']} after {pull['attempts']} attempts "
            f"(attempts pulled: {', '.join(map(str, self.consumer.attempts_seen))})"
        )
        policy = seconds(self.schedule[1]["delayMs"] / 1000) if len(self.schedule) > 1 else "?"
        say(f"      nacked attempt 0; it came back {came_back} later (policy {policy}); acked attempt 1")
        say(
            "  'waited' is from one request to the next, so it runs a little over the policy here: SQS\n"
            "  delays are whole seconds, and the local poller, like Lambda's, gathers a batch for up to\n"
            "  1 s (MaximumBatchingWindowInSeconds) before it invokes the push function."
        )
        final = ", ".join(
            f"{kind} {d['status']} ({d['attempts']} attempts)" for kind, d in self.deliveries.items()
        )
        say(f"  Final status (GET /rooms/…/messages/{self.message_id}): {final}")
        expected = [(0, 500), (1, 503), (2, 500), (3, 200)]
        distinct = list(dict.fromkeys((c.attempt, c.status) for c in calls))
        if bad or distinct != expected:
            say("\nDEMO FAILED: the webhook calls were not the expected attempts 0-3 with valid signatures.")
            return 1
        return 0

    def throttled(self) -> int:
        """A second room whose PUSH subscription is limited to 1 request per second: three
        messages published at once arrive a second apart, each as its first attempt."""
        say = self.timeline.say
        say()
        say("Flow control: a subscription limited to rateLimitPerSecond 1")
        room = self.api.call("POST", "/rooms", {"name": "demo-throttled"}, expect=(201,))
        self.throttled_room_id = room["id"]
        with WebhookReceiver(clock=time.time) as receiver:
            self.api.call(
                "POST",
                f"/rooms/{room['id']}/subscriptions",
                {"type": "PUSH", "pushUrl": receiver.url("/throttled"), "rateLimitPerSecond": 1},
                expect=(201,),
            )
            started = time.time()
            for n in range(THROTTLED_MESSAGES):
                body = {"eventType": "order.created", "eventVersion": "1", "payload": {"orderId": 2000 + n}}
                self.api.call("POST", f"/rooms/{room['id']}/messages", body, expect=(202,))
            say(f"  published {THROTTLED_MESSAGES} messages at once")
            try:
                received = receiver.wait_for_requests(
                    THROTTLED_MESSAGES, max(1.0, self.deadline - time.time())
                )
            except AssertionError as error:
                say(f"\nDEMO FAILED: {error}")
                return 1
        arrivals = [r.arrived_at for r in received]
        for request in received:
            order, attempt = request.json["payload"]["orderId"], request.json["attempt"]
            say(f"  at {request.arrived_at - started:5.2f} s: webhook order {order}, attempt {attempt}")
        gaps = [later - earlier for earlier, later in itertools.pairwise(arrivals)]
        spacing = ", ".join(seconds(g) for g in gaps)
        say(f"  gaps between requests: {spacing} (the limit starts one request per second)")
        # The limit promises start times one second apart on its schedule; one request that left
        # late (a busy worker) narrows the next gap, but the n-th still starts n-1 s after the first.
        behind = [i - (arrival - arrivals[0]) for i, arrival in enumerate(arrivals)]
        if max(behind) > SCHEDULE_TOLERANCE_SECONDS or any(r.json["attempt"] != 0 for r in received):
            say("\nDEMO FAILED: the throttled requests did not start one a second, as first attempts.")
            return 1
        return 0

    def _policy_wait(self, attempt: int | None, previous: WebhookCall) -> str:
        if attempt is None or not 0 < attempt < len(self.schedule):
            return "-"
        policy_ms = self.schedule[attempt]["delayMs"]
        if previous.retry_after is not None:
            asked_ms = float(previous.retry_after) * 1000
            if asked_ms > policy_ms:
                policy = seconds(policy_ms / 1000)
                return f"{seconds(asked_ms / 1000)} (Retry-After raised the policy's {policy})"
            if asked_ms == policy_ms:
                return (
                    f"{seconds(policy_ms / 1000)} (Retry-After asked the same; it can only lengthen a wait)"
                )
            return f"{seconds(policy_ms / 1000)} (Retry-After asked less; it never shortens a wait)"
        return seconds(policy_ms / 1000)

    def cleanup(self) -> None:
        if self.throttled_room_id:
            self.api.call("DELETE", f"/rooms/{self.throttled_room_id}", expect=(204, 404))
        if not self.room_id:
            return
        try:
            self.api.call("DELETE", f"/rooms/{self.room_id}", expect=(204, 404))
            self.api.call("GET", f"/rooms/{self.room_id}", expect=(404,))
        except DemoError as error:
            self.timeline.say(f"cleanup: could not delete room {self.room_id}: {error}")
            return
        self.timeline.say(
            f"\nCleaned up: deleted room {self.room_id} with its 2 subscriptions and the PULL queue "
            "(GET /rooms/… now answers 404)."
        )


def run_demo(api_url: str, api_key: str, out: TextIO, *, timeout_s: float = DEMO_TIMEOUT_S) -> int:
    """Run the scenario against the stack at ``api_url``; 0 when everything arrived as expected."""
    timeline = Timeline(out)
    receiver = DemoWebhook(timeline)
    receiver.start()
    api = Api(api_url.rstrip("/"), api_key)
    scenario = Scenario(api, timeline, receiver, deadline=time.time() + timeout_s, timeout_s=timeout_s)
    code = 1
    try:
        timeline.say(HEADER.format(api_url=api_url, webhook_url=receiver.url))
        scenario.setup()
        scenario.publish()
        scenario.watch()
        code = scenario.summary()
        if code == 0:
            code = scenario.throttled()
    except DemoError as error:
        timeline.say(f"\nDEMO FAILED: {error}")
    except KeyboardInterrupt:
        timeline.say("\nInterrupted; cleaning up.")
        code = 130
    finally:
        if scenario.consumer is not None:
            scenario.consumer.stop()
        scenario.cleanup()
        receiver.stop()
        api.session.close()
    if code == 0:
        timeline.say("Demo finished.")
    return code


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.parse_args(argv)

    from roomcast_dev.stack import read_state

    state = read_state()
    if state is None:
        print("No roomcast local stack is running: start the local stack first: make run", file=sys.stderr)
        return 1
    api_key = os.environ.get("ROOMCAST_API_KEY") or None
    if api_key is None:
        try:
            api_key = _create_demo_key(state)
        except Exception as error:  # a stale state file, the emulator gone, ...
            print(
                f"Could not create an API key in the local stack at {state.get('apiUrl')} "
                f"({type(error).__name__}: {error}).\nIs it still running? Start it with: make run",
                file=sys.stderr,
            )
            return 1
    return run_demo(str(state["apiUrl"]), api_key, sys.stdout)


def _create_demo_key(state: dict[str, Any]) -> str:
    from roomcast.dal.catalog import CatalogStore
    from roomcast_dev.keys import create_api_key
    from roomcast_dev.stack import aws_client

    client = aws_client("dynamodb", state["endpointUrl"])
    return create_api_key(
        CatalogStore(state["outputs"]["TableName"], client=client), TENANT, name="made by make demo"
    )


if __name__ == "__main__":
    raise SystemExit(main())
